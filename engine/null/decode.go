package null

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// decodeInt reads an integral JSON number; a JSON string is refused with a message that says so.
func decodeInt(data []byte) (int64, error) {
	if len(data) > 0 && data[0] == '"' {
		return 0, fmt.Errorf("expected an integer, got the string %s", data)
	}
	if v, err := strconv.ParseInt(string(data), 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fmt.Errorf("expected an integer, got %s", data)
	}
	return int64(f), nil
}

// decodeDuration reads a duration string (see ParseDuration) or a number of milliseconds.
func decodeDuration(data []byte) (time.Duration, error) {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return 0, err
		}
		return ParseDuration(s)
	}
	ms, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return 0, fmt.Errorf("expected a duration string or a number of milliseconds, got %s", data)
	}
	return millisToDuration(ms)
}

const day = 24 * time.Hour

// ParseDuration parses a k6 duration string: Go duration syntax with an optional leading whole
// number of days ("2d", "1d12h30m", "-1d2h"). A string needs its unit: a bare number ("1000")
// is refused, as k6 refuses it on the command line and in K6_* variables; only a JSON number
// is milliseconds (decodeDuration).
func ParseDuration(s string) (time.Duration, error) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil && s != "0" {
		return 0, fmt.Errorf("invalid duration %q: missing unit, e.g. %sms or %ss", s, s, s)
	}
	i := strings.IndexByte(s, 'd')
	if i < 0 {
		return time.ParseDuration(s)
	}
	daysPart, rest := s[:i], s[i+1:]
	neg := strings.HasPrefix(daysPart, "-")
	daysPart = strings.TrimPrefix(strings.TrimPrefix(daysPart, "-"), "+")
	days, err := strconv.ParseUint(daysPart, 10, 63)
	if err != nil || daysPart == "" {
		return 0, fmt.Errorf("invalid duration %q: the day part must be a whole number", s)
	}
	if days > uint64(math.MaxInt64/int64(day)) {
		return 0, fmt.Errorf("invalid duration %q: too long", s)
	}
	total := time.Duration(days) * day
	if rest != "" {
		if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return 0, fmt.Errorf("invalid duration %q: a sign may only lead the whole value", s)
		}
		d, err := time.ParseDuration(rest)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: %w", s, err)
		}
		if d > math.MaxInt64-total {
			return 0, fmt.Errorf("invalid duration %q: too long", s)
		}
		total += d
	}
	if neg {
		total = -total
	}
	return total, nil
}

// millisToDuration converts a (possibly fractional) number of milliseconds, rejecting values a
// time.Duration cannot hold instead of overflowing silently.
func millisToDuration(ms float64) (time.Duration, error) {
	ns := ms * float64(time.Millisecond)
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid duration: %v milliseconds is out of range", ms)
	}
	return time.Duration(math.Round(ns)), nil
}
