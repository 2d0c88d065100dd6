package modules

import (
	"fmt"
	"math/big"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// TagValue converts a JS tag value to its string form. Strings, numbers and booleans are
// accepted (numbers and booleans stringified); objects, arrays, null and undefined are not.
func TagValue(v goja.Value) (string, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	if _, isObject := v.(*goja.Object); isObject {
		return "", false
	}
	return v.String(), true
}

// TagsArgument reads an optional `tags` argument ({name: value, …}) into a tag set; nil when
// absent or empty. Values TagValue rejects are dropped with a warning (an exception with the
// throw option).
func TagsArgument(vu VU, v goja.Value) *metrics.Tags {
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	keys := obj.Keys()
	if len(keys) == 0 {
		return nil
	}
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		s, ok := TagValue(obj.Get(k))
		if !ok {
			vu.Test().Warn(vu, fmt.Sprintf("the value of tag %q is not a string, number or boolean; the tag is dropped", k))
			continue
		}
		m[k] = s
	}
	return metrics.NewTags(m)
}

// Bytes reads binary input the way k6's modules accept it: a string (its UTF-8 bytes), an
// ArrayBuffer, or a view on one (a typed array or a DataView: the bytes it covers). The result
// may share memory with the runtime's buffer; copy it before keeping it.
func Bytes(v goja.Value) ([]byte, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, fmt.Errorf("want a string, an ArrayBuffer or a typed array, got %v", v)
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		// k6 refuses numbers, booleans and the like rather than hash their text.
		if s, isString := v.Export().(string); isString {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("want a string, an ArrayBuffer or a typed array, got %s", primitiveType(v))
	}
	switch x := obj.Export().(type) {
	case goja.ArrayBuffer:
		return x.Bytes(), nil
	case []byte: // Uint8Array
		return x, nil
	}
	buf, ok := obj.Get("buffer").(*goja.Object)
	if ok {
		if ab, ok := buf.Export().(goja.ArrayBuffer); ok {
			data := ab.Bytes()
			off, n := obj.Get("byteOffset").ToInteger(), obj.Get("byteLength").ToInteger()
			if off >= 0 && n >= 0 && off+n <= int64(len(data)) {
				return data[off : off+n], nil
			}
		}
	}
	return nil, fmt.Errorf("want a string, an ArrayBuffer or a typed array, got %s", obj.ClassName())
}

// primitiveType is typeof for a value that is not an object.
func primitiveType(v goja.Value) string {
	switch v.Export().(type) {
	case int64, float64:
		return "number"
	case bool:
		return "boolean"
	case *big.Int:
		return "bigint"
	}
	return "symbol"
}
