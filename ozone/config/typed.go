package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/internal/hadoopduration"
)

// GetBool reads a boolean the way Hadoop's getBoolean does: "true" or "false" in any case,
// surrounding whitespace ignored; unset or blank gives def. Any other text also gives def,
// which Hadoop only logs, so the error here is a warning the caller may print or ignore.
func (c *Config) GetBool(key string, def bool) (bool, error) {
	v := c.GetTrimmed(key, "")
	switch {
	case v == "":
		return def, nil
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return def, fmt.Errorf("config: %s=%q is not a boolean (true/false); using %t", key, v, def)
}

// GetInt reads a 32-bit integer (Java int) in decimal or with a 0x prefix, as Hadoop's getInt
// does. Unset or blank gives def; anything unparsable is an error naming the key.
func (c *Config) GetInt(key string, def int) (int, error) {
	v := c.GetTrimmed(key, "")
	if v == "" {
		return def, nil
	}
	n, err := parseJavaInt(v)
	if err != nil {
		return def, fmt.Errorf("config: %s=%q is not an integer", key, v)
	}
	return n, nil
}

func parseJavaInt(v string) (int, error) {
	sign, digits := "", v
	if strings.HasPrefix(digits, "-") || strings.HasPrefix(digits, "+") {
		sign, digits = digits[:1], digits[1:]
	}
	base := 10
	if hex, ok := strings.CutPrefix(strings.ToLower(digits), "0x"); ok {
		base, digits = 16, hex
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(sign+digits, base, 32)
	return int(n), err
}

// GetDuration reads a time duration with Hadoop's suffixes (ns, us, ms, s, m, h, d; case
// ignored; integers only). A bare number is in unit, the key's default unit upstream. As in
// Hadoop, where the getter returns a whole number of unit, the result is truncated to a
// multiple of unit ("1500ms" read in seconds is 1s). Unset or blank gives def.
func (c *Config) GetDuration(key string, def, unit time.Duration) (time.Duration, error) {
	v := c.GetTrimmed(key, "")
	if v == "" {
		return def, nil
	}
	d, err := ParseHadoopDuration(v, unit)
	if err != nil {
		return def, fmt.Errorf("config: %s: %w", key, err)
	}
	return d, nil
}

// ParseHadoopDuration parses one duration value as GetDuration does (internal/hadoopduration).
func ParseHadoopDuration(v string, unit time.Duration) (time.Duration, error) {
	return hadoopduration.Parse(v, unit)
}

// sizeUnits are binary multiples; both "g" and "gb" spellings appear in Ozone configs
// (Hadoop's getLongBytes uses the one-letter form, getStorageSize the two-letter one).
var sizeUnits = []struct {
	suffix string
	shift  uint
}{
	{"eb", 60}, {"pb", 50}, {"tb", 40}, {"gb", 30}, {"mb", 20}, {"kb", 10},
	{"e", 60}, {"p", 50}, {"t", 40}, {"g", 30}, {"m", 20}, {"k", 10}, {"b", 0},
}

// GetSize reads a byte size such as "1GB", "10mb", "64m", "1.5g" or "4096". Units are binary
// (1 KB = 1024 bytes) and case-insensitive; a bare number is in unit bytes (1 for plain
// bytes). Fractions are truncated to whole bytes. Unset or blank gives def.
func (c *Config) GetSize(key string, def, unit int64) (int64, error) {
	v := c.GetTrimmed(key, "")
	if v == "" {
		return def, nil
	}
	n, err := ParseSize(v, unit)
	if err != nil {
		return def, fmt.Errorf("config: %s: %w", key, err)
	}
	return n, nil
}

// ParseSize parses one size value as GetSize does.
func ParseSize(v string, unit int64) (int64, error) {
	s := strings.ToLower(trimJava(v))
	mult := float64(unit)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = trimJava(num), float64(int64(1)<<u.shift)
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("size %q: want a number with an optional b/k/m/g/t/p/e[b] suffix", v)
	}
	bytes := f * mult
	if bytes >= math.MaxInt64 || bytes <= math.MinInt64 {
		return 0, fmt.Errorf("size %q: out of range", v)
	}
	return int64(bytes), nil
}
