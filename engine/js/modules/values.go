package modules

import (
	"fmt"

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
