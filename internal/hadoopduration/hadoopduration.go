// Package hadoopduration parses durations the way Hadoop and Ozone read them: an integer with
// an optional ns, us, ms, s, m, h or d suffix (case ignored), a bare number in a caller-given
// unit. Both ozone/config (configuration values) and freon (--duration) read this form.
package hadoopduration

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// units are Hadoop's time suffixes in the order Hadoop tests them: "ms" must be tried before
// "s" and "m" (apache/ozone: hadoop-hdds/config/src/main/java/org/apache/hadoop/hdds/conf/
// TimeDurationUtil.java; Hadoop's Configuration uses the same table).
var units = []struct {
	suffix string
	unit   time.Duration
}{
	{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"ms", time.Millisecond},
	{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour},
}

// Parse reads v: a bare number is in unit, a suffixed one in its suffix's unit; the result is
// truncated to a whole number of unit, as TimeDurationUtil converts it.
func Parse(v string, unit time.Duration) (time.Duration, error) {
	if unit <= 0 {
		return 0, fmt.Errorf("duration %q: unit must be positive", v)
	}
	s := strings.ToLower(trimJava(v))
	valueUnit := unit
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, valueUnit = num, u.unit
			break
		}
	}
	raw, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want an integer with an optional ns/us/ms/s/m/h/d suffix", v)
	}
	if raw > math.MaxInt64/int64(valueUnit) || raw < math.MinInt64/int64(valueUnit) {
		return 0, fmt.Errorf("duration %q: out of range", v)
	}
	d := time.Duration(raw) * valueUnit
	return d - d%unit, nil
}

// trimJava removes leading and trailing characters <= U+0020, as Java's String.trim does.
func trimJava(s string) string {
	isSpace := func(r rune) bool { return r <= ' ' }
	return strings.TrimRightFunc(strings.TrimLeftFunc(s, isSpace), isSpace)
}
