package modules

import (
	"errors"
	"fmt"

	"github.com/dop251/goja"
)

// Throw throws err into the script as a GoError (its message reads "GoError: <err>"). It panics
// with a goja value, which is how a native function raises a JS exception; call it only from
// code that JavaScript called.
func Throw(rt *goja.Runtime, err error) {
	panic(rt.NewGoError(err))
}

// ThrowMessage is Throw with a plain message.
func ThrowMessage(rt *goja.Runtime, msg string) {
	Throw(rt, errors.New(msg))
}

// ThrowInInit throws "<what> is not allowed in the init context" when vu is in the init context.
func ThrowInInit(vu VU, what string) {
	if vu.InitContext() {
		ThrowMessage(vu.Runtime(), fmt.Sprintf("%s is not allowed in the init context", what))
	}
}

// Rethrow re-raises an error returned by a goja Callable so that it propagates unchanged:
// exceptions stay catchable, interrupts stay uncatchable.
func Rethrow(err error) {
	panic(err)
}

// IsAsyncFunction reports whether v is an async function. k6 modules reject them where they
// would silently run to the first await only (check, group).
func IsAsyncFunction(v goja.Value) bool {
	obj, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	c := obj.Get("constructor")
	if c == nil {
		return false
	}
	co, ok := c.(*goja.Object)
	if !ok {
		return false
	}
	n := co.Get("name")
	return n != nil && n.String() == "AsyncFunction"
}
