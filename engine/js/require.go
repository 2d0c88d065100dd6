package js

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dnecho/dnecho/engine/js/loader"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// requireFunc returns the `require` a module in dir sees: relative imports resolve against dir.
func (vu *VU) requireFunc(dir string) goja.Value {
	return vu.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		return vu.require(dir, call.Argument(0).String())
	})
}

// require resolves and evaluates an import for the VU. Failures are thrown into the script, so
// the importing module's init fails with a positioned error.
func (vu *VU) require(dir, spec string) goja.Value {
	name, file, err := vu.r.src.Resolve(dir, spec)
	if err != nil {
		modules.Throw(vu.rt, err)
	}
	if file {
		return vu.requireFile(name, spec)
	}
	if m, ok := vu.mods[spec]; ok {
		return m
	}
	vu.requireInit(spec)
	return vu.goModule(spec)
}

// requireFile evaluates the module file (or remote module) name once in the VU and returns its
// exports.
func (vu *VU) requireFile(name, spec string) goja.Value {
	if m, ok := vu.mods[name]; ok {
		return m.Get("exports")
	}
	vu.requireInit(spec)
	c, err := vu.r.compile(name, nil)
	if _, positioned := err.(*ScriptError); positioned {
		// Carry the positioned error as the GoError's value: exceptionError unwraps it, so a
		// syntax error in an imported file points into that file, not at the import.
		panic(vu.rt.NewGoError(err))
	}
	if err != nil {
		modules.Throw(vu.rt, fmt.Errorf("cannot load module %q: %w", spec, err))
	}
	m, err := vu.evalFile(c)
	if err != nil {
		modules.Rethrow(err)
	}
	return m.Get("exports")
}

// requireInit rejects loading a new module outside the init context; already loaded modules
// can be required anywhere.
func (vu *VU) requireInit(spec string) {
	if !vu.inInit {
		modules.ThrowMessage(vu.rt, fmt.Sprintf("cannot load module %q outside the init context", spec))
	}
}

// evalFile runs a compiled module's body in the VU, once, and returns its `module` object.
func (vu *VU) evalFile(c *loader.Module) (*goja.Object, error) {
	if m, ok := vu.mods[c.Name]; ok {
		return m, nil
	}
	fv, err := vu.rt.RunProgram(c.Program)
	if err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(fv)
	if !ok {
		return nil, fmt.Errorf("%s: module wrapper is not a function", c.Name)
	}
	module, exports := vu.rt.NewObject(), vu.rt.NewObject()
	if err := module.Set("exports", exports); err != nil {
		return nil, err
	}
	// Registered before running so that import cycles see the partial exports, as in CommonJS.
	vu.mods[c.Name] = module
	_, err = fn(exports, exports, vu.requireFunc(c.Dir), module,
		vu.rt.ToValue(c.Name), vu.rt.ToValue(c.Dir), vu.openFunc(c.Dir))
	if err != nil {
		delete(vu.mods, c.Name)
		return nil, err
	}
	return module, nil
}

// goModule creates the VU's instance of a Go module and returns its exports object.
func (vu *VU) goModule(name string) goja.Value {
	root, ok := vu.r.root(name)
	if !ok {
		modules.ThrowMessage(vu.rt, fmt.Sprintf("unknown module %q; available modules: %s",
			name, strings.Join(modules.Names(vu.r.factories), ", ")))
	}
	inst, err := root.NewModuleInstance((*moduleVU)(vu))
	if err != nil {
		modules.Throw(vu.rt, fmt.Errorf("module %q: %w", name, err))
	}
	obj := vu.exportsObject(inst.Exports())
	vu.mods[name] = obj
	return obj
}

// exportsObject builds the object `require` returns for a Go module. It is marked __esModule so
// that esbuild's import helpers map `import x from` to Default and `import {a} from` to Named.
func (vu *VU) exportsObject(e modules.Exports) *goja.Object {
	rt := vu.rt
	obj := rt.NewObject()
	names := make([]string, 0, len(e.Named))
	for k := range e.Named {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := rt.ToValue(e.Named[k])
		nameExports(rt, k, v)
		_ = obj.Set(k, v)
	}
	def := goja.Value(obj)
	if e.Default != nil {
		def = rt.ToValue(e.Default)
	}
	_ = obj.DefineDataProperty("default", def, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	_ = obj.DefineDataProperty("__esModule", rt.ToValue(true), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return obj
}
