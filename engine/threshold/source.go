package threshold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is the `thresholds` option: threshold keys ("metric" or "metric{k:v}") mapped to their
// sources. It decodes from the options JSON directly.
type Config map[string][]Source

// DecodeConfig decodes the JSON of the `thresholds` option. Errors are *ConfigError.
func DecodeConfig(data []byte) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &ConfigError{Key: "thresholds", Reason: "must be an object mapping metric names to arrays of thresholds: " + err.Error()}
	}
	cfg := make(Config, len(raw))
	for k, v := range raw {
		var srcs []Source
		if err := json.Unmarshal(v, &srcs); err != nil {
			return nil, &ConfigError{Key: k, Reason: "thresholds must be an array of strings or objects: " + err.Error()}
		}
		cfg[k] = srcs
	}
	return cfg, nil
}

// Source is one threshold as written: a plain expression, or the object form with abortOnFail
// and delayAbortEval (docs/k6-compat.md#abortonfail-and-delayaborteval).
type Source struct {
	Threshold      string
	AbortOnFail    bool
	DelayAbortEval time.Duration
	delayText      string // as written, re-emitted by MarshalJSON
}

type sourceObject struct {
	Threshold      string          `json:"threshold"`
	AbortOnFail    bool            `json:"abortOnFail"`
	DelayAbortEval json.RawMessage `json:"delayAbortEval,omitempty"`
}

// UnmarshalJSON accepts a string or {threshold, abortOnFail, delayAbortEval}. Unknown keys are
// ignored.
func (s *Source) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*s = Source{}
		return json.Unmarshal(b, &s.Threshold)
	}
	var o sourceObject
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("a threshold must be a string or an object {threshold, abortOnFail, delayAbortEval}: %w", err)
	}
	*s = Source{Threshold: o.Threshold, AbortOnFail: o.AbortOnFail}
	if len(o.DelayAbortEval) == 0 || string(o.DelayAbortEval) == "null" {
		return nil
	}
	d, text, err := parseDuration(o.DelayAbortEval)
	if err != nil {
		return fmt.Errorf("threshold %q: delayAbortEval: %w", o.Threshold, err)
	}
	s.DelayAbortEval, s.delayText = d, text
	return nil
}

// MarshalJSON writes the plain string unless abortOnFail is set: k6 collapses
// `{threshold, abortOnFail: false}` to the string when it re-serialises options.
// The result is not HTML-escaped; an outer encoder applies its own setting.
func (s Source) MarshalJSON() ([]byte, error) {
	if !s.AbortOnFail {
		return marshalNoHTML(s.Threshold)
	}
	o := sourceObject{Threshold: s.Threshold, AbortOnFail: true}
	if s.DelayAbortEval != 0 || s.delayText != "" {
		text := s.delayText
		if text == "" {
			text = s.DelayAbortEval.String()
		}
		o.DelayAbortEval, _ = marshalNoHTML(text)
	}
	return marshalNoHTML(o)
}

func marshalNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// parseDuration reads a k6 duration (docs/k6-compat.md#value-rules): a Go duration string with an
// optional leading "<N>d" day part, or a number of milliseconds.
func parseDuration(raw json.RawMessage) (time.Duration, string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, "", err
	}
	switch x := v.(type) {
	case float64:
		return time.Duration(x * float64(time.Millisecond)), strconv.FormatFloat(x, 'f', -1, 64) + "ms", nil
	case string:
		d, err := ParseDuration(x)
		return d, x, err
	}
	return 0, "", fmt.Errorf("%s is not a duration (use a string such as \"10s\" or a number of milliseconds)", raw)
}

// ParseDuration parses a duration string in Go syntax with an optional leading "<N>d" day part.
func ParseDuration(orig string) (time.Duration, error) {
	s := strings.TrimSpace(orig)
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseUint(s[:i], 10, 32)
		if err == nil {
			days = time.Duration(n) * 24 * time.Hour
			s = s[i+1:]
			if s == "" {
				return days, nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q", orig)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", orig)
	}
	return days + d, nil
}
