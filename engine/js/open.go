package js

import (
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// openFunc returns the `open(path[, "b"])` a module in dir sees. Relative paths resolve against
// the module's own directory. Contents are read once per test and shared by all VUs; binary mode
// hands each call its own ArrayBuffer copy because scripts may modify it.
func (vu *VU) openFunc(dir string) goja.Value {
	return vu.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		if !vu.inInit {
			modules.ThrowMessage(vu.rt, "open() is only available in the init context")
		}
		name := call.Argument(0)
		if goja.IsUndefined(name) || goja.IsNull(name) || name.String() == "" {
			modules.ThrowMessage(vu.rt, "open() needs a file name")
		}
		data, text, err := vu.r.src.Open(dir, name.String())
		if err != nil {
			modules.Throw(vu.rt, err)
		}
		if call.Argument(1).String() == "b" {
			return vu.rt.ToValue(vu.rt.NewArrayBuffer(append([]byte(nil), data...)))
		}
		return vu.rt.ToValue(text)
	})
}
