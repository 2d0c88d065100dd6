package freon

import (
	"math"
	"strconv"
	"strings"
)

// The freon reports are produced by Java, so numbers must be printed the way the JVM prints
// them, not the way Go's fmt does: the two differ in rounding (Java's %.2f rounds half up
// from the shortest decimal, so 0.125 prints 0.13 where Go prints 0.12) and in the plain
// versus scientific switch of Double.toString.

// javaSign returns the sign prefix of v ("-" also for -0.0), or, for NaN and the
// infinities, the whole text Java prints for them in both formats.
func javaSign(v float64) (sign, special string) {
	switch {
	case math.IsNaN(v):
		return "", "NaN"
	case math.IsInf(v, 1):
		return "", "Infinity"
	case math.IsInf(v, -1):
		return "", "-Infinity"
	case math.Signbit(v):
		return "-", ""
	}
	return "", ""
}

// decimalDigits returns the shortest decimal that reads back as |v|: digits without leading
// or trailing zeros and exp such that |v| = d[0].d[1:] × 10^exp. v must be finite and non-zero.
func decimalDigits(v float64) (digits string, exp int) {
	s := strconv.FormatFloat(math.Abs(v), 'e', -1, 64) // "d.ddde±XX"
	mant, e, _ := strings.Cut(s, "e")
	exp, _ = strconv.Atoi(e)
	return strings.Replace(mant, ".", "", 1), exp
}

// formatJavaDouble formats v as Java's Double.toString does (JDK 19 and later, which
// specifies the shortest decimal that round-trips): "0.0", "812.3456", "1.0E-4", "1.0E7".
// Plain notation is used for 10^-3 <= |v| < 10^7, computerized scientific otherwise, and
// there is always at least one digit after the point.
func formatJavaDouble(v float64) string {
	sign, special := javaSign(v)
	if special != "" {
		return special
	}
	if v == 0 {
		return sign + "0.0"
	}
	digits, exp := javaDigits(v)
	if abs := math.Abs(v); abs >= 1e-3 && abs < 1e7 {
		return sign + plainDecimal(digits, exp)
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// javaDigits applies the one case where Java's choice differs from the plain shortest
// decimal: when one digit suffices, Java picks among one- and two-digit decimals the one
// closest to v (so Double.MIN_VALUE prints 4.9E-324, not 5E-324).
func javaDigits(v float64) (string, int) {
	digits, exp := decimalDigits(v)
	if len(digits) != 1 {
		return digits, exp
	}
	two := strconv.FormatFloat(math.Abs(v), 'e', 1, 64)
	if back, err := strconv.ParseFloat(two, 64); err == nil && back == math.Abs(v) {
		mant, e, _ := strings.Cut(two, "e")
		if d := strings.Replace(mant, ".", "", 1); d[1] != '0' {
			exp2, _ := strconv.Atoi(e)
			return d, exp2
		}
	}
	return digits, exp
}

// plainDecimal renders digits × 10^exp (digits[0] at the 10^exp place) without exponent,
// keeping at least one fractional digit.
func plainDecimal(digits string, exp int) string {
	if exp < 0 {
		return "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return digits[:exp+1] + "." + digits[exp+1:]
}

// formatJavaFixed formats v as Java's String.format("%.Nf") in the en_US locale: the
// shortest decimal of v rounded half up to prec fractional digits.
func formatJavaFixed(v float64, prec int) string {
	sign, special := javaSign(v)
	if special != "" {
		return special
	}
	if v == 0 {
		return sign + fixedFromDigits(nil, 0, prec)
	}
	digits, exp := decimalDigits(v)
	intLen := exp + 1 // digits before the decimal point
	keep := intLen + prec
	d := []byte(digits)
	switch {
	case keep < 0:
		d, intLen = nil, 0
	case keep < len(d):
		roundUp := d[keep] >= '5'
		d = d[:keep]
		if roundUp {
			if carry := incrementDigits(d); carry {
				d = append([]byte{'1'}, d...)
				intLen++
			}
		}
	}
	return sign + fixedFromDigits(d, intLen, prec)
}

// incrementDigits adds one unit in the last place of a decimal digit string, reporting a
// carry out of the first digit. An empty string carries at once (0.004 → 0.01 style cases).
func incrementDigits(d []byte) bool {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return false
		}
		d[i] = '0'
	}
	return true
}

// fixedFromDigits places the decimal point intLen digits into d and pads to prec decimals.
func fixedFromDigits(d []byte, intLen, prec int) string {
	var b strings.Builder
	switch {
	case intLen <= 0:
		b.WriteByte('0')
	case len(d) >= intLen:
		b.Write(d[:intLen])
	default:
		b.Write(d)
		b.WriteString(strings.Repeat("0", intLen-len(d)))
	}
	if prec == 0 {
		return b.String()
	}
	b.WriteByte('.')
	var frac []byte
	if intLen < 0 {
		frac = append([]byte(strings.Repeat("0", -intLen)), d...)
	} else if len(d) > intLen {
		frac = d[intLen:]
	}
	if len(frac) > prec {
		frac = frac[:prec]
	}
	b.Write(frac)
	b.WriteString(strings.Repeat("0", prec-len(frac)))
	return b.String()
}
