package execution

import (
	"fmt"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// tagsObject is exec.vu.metrics.tags (or .metadata): a live view of the VU's tag set. Writes set
// tags until the VU's next scenario activation; values must be strings, numbers or booleans.
type tagsObject struct {
	vu       modules.VU
	metadata bool
}

func (t *tagsObject) Get(key string) goja.Value {
	ts := t.vu.Tags()
	var v string
	var ok bool
	if t.metadata {
		v, ok = ts.Metadata()[key]
	} else {
		v, ok = ts.Get(key)
	}
	if !ok {
		return nil
	}
	return t.vu.Runtime().ToValue(v)
}

func (t *tagsObject) Set(key string, val goja.Value) bool {
	s, ok := modules.TagValue(val)
	if !ok {
		kind := "tag"
		if t.metadata {
			kind = "metadata"
		}
		t.vu.Test().Warn(t.vu, fmt.Sprintf("%s %q: only string, number or boolean values are allowed; the value is ignored", kind, key))
		// Reporting success keeps strict-mode scripts from getting a TypeError on top.
		return true
	}
	if t.metadata {
		t.vu.Tags().SetMetadata(key, s)
	} else {
		t.vu.Tags().Set(key, s)
	}
	return true
}

func (t *tagsObject) Has(key string) bool { return t.Get(key) != nil }

func (t *tagsObject) Delete(key string) bool {
	if t.metadata {
		t.vu.Tags().DeleteMetadata(key)
	} else {
		t.vu.Tags().Delete(key)
	}
	return true
}

func (t *tagsObject) Keys() []string {
	if t.metadata {
		return t.vu.Tags().MetadataKeys()
	}
	return t.vu.Tags().Keys()
}
