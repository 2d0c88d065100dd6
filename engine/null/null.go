// Package null holds option values that remember whether they were set, so that option layering
// and defaults can tell an explicit 0, "" or false from an absent key, and reads them in the JSON
// forms k6 accepts: integers written as 1e3, durations as "1m30s", "2d" or milliseconds, and null
// for "not set" (grafana/k6 lib/types/types.go, and the gopkg.in/guregu/null.v3 types k6 uses).
package null

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Value is an option of type T that may be unset. The zero value is unset.
type Value[T any] struct {
	V     T
	Valid bool
}

// From returns a set Value holding v.
func From[T any](v T) Value[T] { return Value[T]{V: v, Valid: true} }

// ValueOr returns the value, or def when it is not set.
func (n Value[T]) ValueOr(def T) T {
	if n.Valid {
		return n.V
	}
	return def
}

// UnmarshalJSON accepts null (not set) or the JSON form of T: an integral number for int64 (1e3
// is fine, 1.5 is not), a duration string or a number of milliseconds for time.Duration, and
// what encoding/json accepts for any other T.
func (n *Value[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*n = Value[T]{}
		return nil
	}
	var v T
	if err := decode(&v, data); err != nil {
		return err
	}
	*n = From(v)
	return nil
}

// MarshalJSON writes null, a duration as a Go duration string, or the value as encoding/json does.
func (n Value[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	if d, ok := any(n.V).(time.Duration); ok {
		return json.Marshal(d.String())
	}
	return json.Marshal(n.V)
}

// decode reads one non-null JSON value into dst with k6's rules for integers and durations.
func decode(dst any, data []byte) error {
	switch p := dst.(type) {
	case *int64:
		v, err := decodeInt(data)
		*p = v
		return err
	case *time.Duration:
		v, err := decodeDuration(data)
		*p = v
		return err
	case *string:
		if err := json.Unmarshal(data, p); err != nil {
			return fmt.Errorf("expected a string, got %s", data)
		}
		return nil
	}
	return json.Unmarshal(data, dst)
}
