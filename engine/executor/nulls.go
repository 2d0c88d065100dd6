package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// NullInt is an integer option that remembers whether it was set, so defaults and "required"
// checks can tell an explicit 0 from an absent key. JSON null means "not set".
type NullInt struct {
	Int64 int64
	Valid bool
}

// NewNullInt returns a set NullInt.
func NewNullInt(v int64) NullInt { return NullInt{Int64: v, Valid: true} }

// ValueOr returns the value, or def when it is not set.
func (n NullInt) ValueOr(def int64) int64 {
	if n.Valid {
		return n.Int64
	}
	return def
}

// UnmarshalJSON accepts null or an integral JSON number (1e3 is fine, 1.5 is not).
func (n *NullInt) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*n = NullInt{}
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		return fmt.Errorf("expected an integer, got the string %s", data)
	}
	if v, err := strconv.ParseInt(string(data), 10, 64); err == nil {
		*n = NewNullInt(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("expected an integer, got %s", data)
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return fmt.Errorf("expected an integer, got %s", data)
	}
	*n = NewNullInt(int64(f))
	return nil
}

// MarshalJSON writes null or the number.
func (n NullInt) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, n.Int64, 10), nil
}

// NullDuration is a duration option that remembers whether it was set. In JSON it is a string
// (see ParseDuration) or a number of milliseconds; null means "not set".
type NullDuration struct {
	Duration time.Duration
	Valid    bool
}

// NewNullDuration returns a set NullDuration.
func NewNullDuration(d time.Duration) NullDuration { return NullDuration{Duration: d, Valid: true} }

// ValueOr returns the duration, or def when it is not set.
func (n NullDuration) ValueOr(def time.Duration) time.Duration {
	if n.Valid {
		return n.Duration
	}
	return def
}

// String formats the duration the way k6 prints it in messages (Go syntax).
func (n NullDuration) String() string { return n.Duration.String() }

// UnmarshalJSON accepts null, a duration string, or a number of milliseconds.
func (n *NullDuration) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case string(data) == "null":
		*n = NullDuration{}
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		d, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*n = NewNullDuration(d)
		return nil
	default:
		ms, err := strconv.ParseFloat(string(data), 64)
		if err != nil {
			return fmt.Errorf("expected a duration string or a number of milliseconds, got %s", data)
		}
		d, err := millisToDuration(ms)
		if err != nil {
			return err
		}
		*n = NewNullDuration(d)
		return nil
	}
}

// MarshalJSON writes null or the duration as a Go duration string.
func (n NullDuration) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Duration.String())
}

// NullString is a string option that remembers whether it was set.
type NullString struct {
	String string
	Valid  bool
}

// NewNullString returns a set NullString.
func NewNullString(s string) NullString { return NullString{String: s, Valid: true} }

// UnmarshalJSON accepts null or a JSON string.
func (n *NullString) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = NullString{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("expected a string, got %s", data)
	}
	*n = NewNullString(s)
	return nil
}

// MarshalJSON writes null or the string.
func (n NullString) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.String)
}
