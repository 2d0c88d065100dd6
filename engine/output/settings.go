package output

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SettingError is an invalid output setting: the option (environment variable or argument key),
// the value and what is allowed.
type SettingError struct {
	Option, Value, Allowed string
}

// Error implements error.
func (e *SettingError) Error() string {
	return fmt.Sprintf("%s=%q: %s", e.Option, e.Value, e.Allowed)
}

// ParseBool reads a boolean setting the way k6's environment does (strconv.ParseBool).
func ParseBool(option, v string) (bool, error) {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, &SettingError{option, v, "use true or false"}
	}
	return b, nil
}

// ParseDuration reads a duration setting: a Go duration ("1s", "500ms") or a number of
// milliseconds, as k6's duration options accept.
func ParseDuration(option, v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, &SettingError{option, v, "use a duration such as 500ms, 1s or 1m"}
	}
	return d, nil
}

// ParsePositiveDuration is ParseDuration that refuses zero.
func ParsePositiveDuration(option, v string) (time.Duration, error) {
	d, err := ParseDuration(option, v)
	if err == nil && d <= 0 {
		err = &SettingError{option, v, "use a duration above zero, such as 1s"}
	}
	return d, err
}

// ParsePositiveInt reads an integer setting that must be above zero.
func ParsePositiveInt(option, v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0, &SettingError{option, v, "use a whole number above zero"}
	}
	return n, nil
}

// KV is one key=value pair of an output argument.
type KV struct{ Key, Value string }

// ParseKVList splits the argument form "k1=v1,k2=v2" (Prometheus remote write, CSV) in order.
func ParseKVList(arg string) ([]KV, error) {
	var out []KV
	for _, part := range strings.Split(arg, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q: want key=value", part)
		}
		out = append(out, KV{strings.TrimSpace(k), v})
	}
	return out, nil
}

// ParseHeaders reads "k1=v1,k2=v2" (sep '=') or "k1:v1,k2:v2" (sep ':') header lists.
func ParseHeaders(option, v string, sep string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, val, ok := strings.Cut(part, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &SettingError{option, v, fmt.Sprintf("use name%svalue pairs separated by commas", sep)}
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out, nil
}
