package js

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// throwingModule exports Go functions that throw: a named export, a method value on an object
// it exports, an anonymous closure there, and a method on an object made during the iteration.
type throwingModule struct{}

func (throwingModule) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	return &throwingInstance{vu: vu}, nil
}

type throwingInstance struct{ vu modules.VU }

func (i *throwingInstance) Echo(goja.FunctionCall) goja.Value {
	modules.ThrowMessage(i.vu.Runtime(), "no echo today")
	return nil
}

func (i *throwingInstance) newClient(goja.FunctionCall) goja.Value {
	rt := i.vu.Runtime()
	c := rt.NewObject()
	_ = c.Set("echo", i.Echo)
	_ = c.Set("anon", func(goja.FunctionCall) goja.Value {
		modules.ThrowMessage(rt, "anonymous failure")
		return nil
	})
	return c
}

func (i *throwingInstance) Exports() modules.Exports {
	rt := i.vu.Runtime()
	client := rt.NewObject()
	_ = client.Set("send", i.Echo)
	_ = client.Set("anon", func(goja.FunctionCall) goja.Value {
		modules.ThrowMessage(rt, "anonymous failure")
		return nil
	})
	return modules.Exports{Named: map[string]any{"boom": i.Echo, "client": client, "newClient": i.newClient}}
}

// TestNativeFramesShowJSNames: a stack trace through a Go function names it as the script does
// ("at echo (native)"), never by its Go symbol.
func TestNativeFramesShowJSNames(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
import { boom, client, newClient } from "k6/x/throw";
export function viaExport() { boom(); }
export function viaMethod() { client.send(); }
export function viaClosure() { client.anon(); }
export function viaMadeObject() { newClient().echo(); }
export function viaMadeClosure() { newClient().anon(); }
export default function () {}
`}, "script.js", Config{Modules: map[string]modules.Factory{"k6/x/throw": func() modules.Module { return throwingModule{} }}})
	for fn, want := range map[string]string{
		"viaExport": "at boom (native)", "viaMethod": "at send (native)", "viaClosure": "at anon (native)",
		// Made during the iteration: the name comes from the Go method, as the runtime maps it;
		// a Go closure has none.
		"viaMadeObject": "at echo (native)", "viaMadeClosure": "at native",
	} {
		vu, err := e.r.NewVU(context.Background(), 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := vu.Activate(&execinfo.Scenario{Name: "s", Exec: fn}); err != nil {
			t.Fatal(err)
		}
		err = vu.RunIteration(context.Background(), execinfo.Iteration{}).Err
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Fatalf("%s: %v, want a script error", fn, err)
		}
		first, _, _ := strings.Cut(se.Stack, "\n")
		if strings.TrimSpace(first) != want || strings.Contains(se.Stack, "github.com") || !strings.Contains(se.Stack, "at "+fn+" (") {
			t.Errorf("%s: stack\n%s\nwant first frame %q and no Go symbol", fn, se.Stack, want)
		}
	}
}

func TestNativeName(t *testing.T) {
	for in, want := range map[string]string{
		"check": "check",
		"github.com/dnecho/dnecho/xdnecho.(*client).echo-fm":         "echo",
		"github.com/dnecho/dnecho/xdnecho.(*Client).Echo-fm":         "echo",
		"github.com/dnecho/dnecho/engine/js/modules/k6.check":        "check",
		"github.com/dnecho/dnecho/xdnecho.(*instance).Exports.func3": "",
		"github.com/x/y.Map[...].Get-fm":                             "get",
		"github.com/x/y.init.0.func1":                                "",
		"[Symbol.iterator]":                                          "[Symbol.iterator]",
	} {
		if got := nativeName(in); got != want {
			t.Errorf("nativeName(%q) = %q, want %q", in, got, want)
		}
	}
}
