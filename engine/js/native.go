package js

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// goja names a Go function by its Go symbol ("github.com/x/y.(*client).echo-fm"), and that name
// shows in the `name` property and in stack traces. Scripts know the function by a JS name, so
// the exports of Go modules are renamed after their keys, and any other Go symbol in a trace is
// shortened to the name the runtime maps the Go method to.

// nameExports renames the Go functions among v, or among v's own properties when v is an
// object, after the keys the script reaches them by.
func nameExports(rt *goja.Runtime, key string, v goja.Value) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return
	}
	if _, isFunc := goja.AssertFunction(obj); isFunc {
		nameGoFunc(rt, obj, key)
		return
	}
	for _, k := range obj.Keys() {
		if f, ok := obj.Get(k).(*goja.Object); ok {
			if _, isFunc := goja.AssertFunction(f); isFunc {
				nameGoFunc(rt, f, k)
			}
		}
	}
}

// nameGoFunc sets f's name to name when f is a Go function still named by its Go symbol.
func nameGoFunc(rt *goja.Runtime, f *goja.Object, name string) {
	if isGoSymbol(f.Get("name").String()) {
		_ = f.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
}

// isGoSymbol tells a Go symbol from a JS function name: a Go symbol is qualified by its package
// ("pkg.F"), which no JS identifier is; computed names such as "[Symbol.iterator]" and
// accessor names such as "get x" are not Go symbols.
func isGoSymbol(name string) bool {
	return strings.Contains(name, ".") && !strings.HasPrefix(name, "[") && !strings.Contains(name, " ")
}

// nativeName is the JS name of a native frame's function: name itself when it is a JS name, the
// method name a Go symbol ends with, mapped as goja.UncapFieldNameMapper maps it
// ("(*client).Echo-fm" → "echo"), or "" for an anonymous Go closure ("Exports.func1").
func nativeName(name string) string {
	if !isGoSymbol(name) {
		return name
	}
	sym := typeArgs.ReplaceAllString(strings.TrimSuffix(name, "-fm"), "")
	last := sym[strings.LastIndexByte(sym, '.')+1:]
	if last == "" || strings.ContainsAny(last, "()*") || isClosureName(last) {
		return ""
	}
	r, size := utf8.DecodeRuneInString(last)
	return string(unicode.ToLower(r)) + last[size:]
}

// typeArgs matches the type arguments of a generic function's symbol ("Map[...]").
var typeArgs = regexp.MustCompile(`\[[^\]]*\]`)

// isClosureName matches the names Go gives function literals: "func1", "func2", …, "1".
func isClosureName(s string) bool {
	s = strings.TrimPrefix(s, "func")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
