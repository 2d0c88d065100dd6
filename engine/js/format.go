package js

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// consoleFormat renders a console argument as k6 does since v1.5 (grafana/k6 #5460, #5496;
// docs/k6-compat.md, "console"): strings as they are at the top level and quoted inside
// objects, objects as `{ key: value }`, arrays as `[ a, b ]`, functions as `[object Function]`,
// typed arrays as `Uint8Array(3) [ 1, 2, 3 ]`, an ArrayBuffer with its bytes in hex, errors as
// their message, and a value that contains itself as `[Circular]`.
type consoleFormat struct {
	rt   *goja.Runtime
	b    strings.Builder
	path []*goja.Object // the objects being rendered, outermost first
}

// typedArrays are the Symbol.toStringTag values of typed arrays.
var typedArrays = map[string]bool{
	"Int8Array": true, "Uint8Array": true, "Uint8ClampedArray": true, "Int16Array": true,
	"Uint16Array": true, "Int32Array": true, "Uint32Array": true, "Float32Array": true,
	"Float64Array": true, "BigInt64Array": true, "BigUint64Array": true,
}

// maxFormatDepth bounds nesting, so that a deep structure cannot make a log line unbounded.
const maxFormatDepth = 16

func formatConsoleValue(rt *goja.Runtime, v goja.Value) string {
	if obj, ok := v.(*goja.Object); ok {
		f := &consoleFormat{rt: rt}
		f.object(obj)
		return f.b.String()
	}
	return v.String()
}

// value renders a value inside an object or array.
func (f *consoleFormat) value(v goja.Value) {
	switch {
	case v == nil || goja.IsUndefined(v):
		f.b.WriteString("undefined")
	case goja.IsNull(v):
		f.b.WriteString("null")
	case isString(v):
		f.b.WriteString(strconv.Quote(v.String()))
	default:
		if obj, ok := v.(*goja.Object); ok {
			f.object(obj)
			return
		}
		f.b.WriteString(v.String())
	}
}

// isString says whether v is a string primitive (not a String object).
func isString(v goja.Value) bool {
	if _, ok := v.(*goja.Object); ok {
		return false
	}
	_, ok := v.Export().(string)
	return ok
}

func (f *consoleFormat) object(obj *goja.Object) {
	for _, p := range f.path {
		if p == obj {
			f.b.WriteString("[Circular]")
			return
		}
	}
	if _, isFn := goja.AssertFunction(obj); isFn {
		f.b.WriteString("[object Function]")
		return
	}
	switch obj.ClassName() {
	case "Error":
		f.b.WriteString(obj.String())
		return
	case "Date":
		f.b.WriteString(obj.String())
		return
	}
	if len(f.path) >= maxFormatDepth {
		f.b.WriteString("[Object]")
		return
	}
	f.path = append(f.path, obj)
	defer func() { f.path = f.path[:len(f.path)-1] }()
	tag := ""
	if t := obj.GetSymbol(goja.SymToStringTag); t != nil && !goja.IsUndefined(t) {
		tag = t.String()
	}
	switch {
	case tag == "ArrayBuffer":
		f.arrayBuffer(obj)
	case typedArrays[tag]:
		fmt.Fprintf(&f.b, "%s(%d) ", tag, obj.Get("length").ToInteger())
		f.elements(obj)
	case obj.ClassName() == "Array":
		f.elements(obj)
	default:
		f.fields(obj)
	}
}

// elements renders an array or typed array's elements: `[ 1, 2 ]`, `[]` when empty.
func (f *consoleFormat) elements(obj *goja.Object) {
	n := obj.Get("length").ToInteger()
	if n == 0 {
		f.b.WriteString("[]")
		return
	}
	f.b.WriteString("[ ")
	for i := int64(0); i < n; i++ {
		if i > 0 {
			f.b.WriteString(", ")
		}
		f.value(obj.Get(strconv.FormatInt(i, 10)))
	}
	f.b.WriteString(" ]")
}

// fields renders an object's own enumerable properties in their order: `{ a: 1 }`, `{}`.
func (f *consoleFormat) fields(obj *goja.Object) {
	keys := obj.Keys()
	if len(keys) == 0 {
		f.b.WriteString("{}")
		return
	}
	f.b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			f.b.WriteString(", ")
		}
		if isIdentifier(k) {
			f.b.WriteString(k)
		} else {
			f.b.WriteString(strconv.Quote(k))
		}
		f.b.WriteString(": ")
		f.value(obj.Get(k))
	}
	f.b.WriteString(" }")
}

func (f *consoleFormat) arrayBuffer(obj *goja.Object) {
	buf, _ := obj.Export().(goja.ArrayBuffer)
	data := buf.Bytes()
	f.b.WriteString("ArrayBuffer { [Uint8Contents]: <")
	for i, c := range data {
		if i > 0 {
			f.b.WriteByte(' ')
		}
		fmt.Fprintf(&f.b, "%02x", c)
	}
	fmt.Fprintf(&f.b, ">, byteLength: %d }", len(data))
}

// isIdentifier says whether a key can be written without quotes.
func isIdentifier(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
