// Package encoding is the built-in `k6/encoding` module: base64 in the four alphabets k6 offers
// (grafana/k6 internal/js/modules/k6/encoding/encoding.go; docs/k6-compat.md#module-k6encoding).
package encoding

import (
	"encoding/base64"
	"fmt"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// New returns the module's root; it holds nothing.
func New() modules.Module {
	return modules.Stateless(func(vu modules.VU) modules.Exports {
		i := instance{vu}
		return modules.Exports{Named: map[string]any{"b64encode": i.b64encode, "b64decode": i.b64decode}}
	})
}

type instance struct{ vu modules.VU }

// Alphabet returns the base64 encoding k6 names: "std" (the default, also for an unknown name,
// as k6 does), "rawstd", "url" or "rawurl" (raw: without padding).
func Alphabet(name string) *base64.Encoding {
	switch name {
	case "rawstd":
		return base64.RawStdEncoding
	case "url":
		return base64.URLEncoding
	case "rawurl":
		return base64.RawURLEncoding
	}
	return base64.StdEncoding
}

// b64encode(input, encoding?) returns the base64 text of a string (its UTF-8 bytes), an
// ArrayBuffer or a typed array.
func (i instance) b64encode(call goja.FunctionCall) goja.Value {
	data, err := modules.Bytes(call.Argument(0))
	if err != nil {
		modules.Throw(i.vu.Runtime(), fmt.Errorf("b64encode: %w", err))
	}
	return i.vu.Runtime().ToValue(Alphabet(optString(call.Argument(1))).EncodeToString(data))
}

// b64decode(input, encoding?, format?) decodes base64 text: a string when format is "s", else an
// ArrayBuffer. Invalid input throws.
func (i instance) b64decode(call goja.FunctionCall) goja.Value {
	rt := i.vu.Runtime()
	out, err := Alphabet(optString(call.Argument(1))).DecodeString(call.Argument(0).String())
	if err != nil {
		modules.Throw(rt, fmt.Errorf("b64decode: %w", err))
	}
	if optString(call.Argument(2)) == "s" {
		return rt.ToValue(string(out))
	}
	return rt.ToValue(rt.NewArrayBuffer(out))
}

// optString is an optional string argument: "" when absent.
func optString(v goja.Value) string {
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}
