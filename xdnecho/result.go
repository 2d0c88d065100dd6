package xdnecho

import (
	"slices"
	"time"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

// echoResult is the object echo() returns (js/index.d.ts EchoResult). It is a goja dynamic
// object rather than an ordinary one: building an ordinary object costs nine property insertions,
// each through an exception frame (about 3 µs and 13 allocations per call, measured), whereas
// this costs three small allocations, and a property is only converted to a JS value when the
// script reads it. To the script it behaves as a plain object (Object.prototype, enumerable own
// properties in a fixed order, JSON.stringify, spread); properties it assigns or deletes are kept.
type echoResult struct {
	inst     *instance
	result   string // ok is result == echo.LabelSuccess
	message  string
	latency  time.Duration
	datanode datanode.DataNode
	sent     int
	received int
	attempts int
	// over holds what the script changed; nil until it assigns or deletes a property, which
	// keeps the common, untouched result small (one size class less to allocate per call).
	over *resultOverrides
}

// resultOverrides are a result's properties assigned or deleted by the script.
type resultOverrides struct {
	deleted   uint16 // bit i: resultKeys[i] was deleted
	extra     map[string]goja.Value
	extraKeys []string // insertion order of extra
}

var noOverrides resultOverrides

// overrides returns what the script changed, empty when nothing (never nil).
func (r *echoResult) overrides() *resultOverrides {
	if r.over == nil {
		return &noOverrides
	}
	return r.over
}

// mutable returns r's overrides for changing them.
func (r *echoResult) mutable() *resultOverrides {
	if r.over == nil {
		r.over = &resultOverrides{}
	}
	return r.over
}

// resultKeys are echoResult's properties, in the order Object.keys and JSON.stringify give them.
var resultKeys = []string{"ok", "result", "message", "rtt", "datanode", "address", "bytesSent", "bytesReceived", "attempts"}

// resultObject builds the JS value echo() returns.
func (i *instance) resultObject(res echo.Result) goja.Value {
	return i.vu.Runtime().NewDynamicObject(&echoResult{
		inst: i, result: res.Label, message: res.Message, latency: res.Latency,
		datanode: res.DataNode, sent: res.BytesSent, received: res.BytesReceived, attempts: res.Attempts,
	})
}

// builtin returns the value of resultKeys[idx].
func (r *echoResult) builtin(idx int) goja.Value {
	rt := r.inst.vu.Runtime()
	switch idx {
	case 0:
		return rt.ToValue(r.result == echo.LabelSuccess)
	case 1:
		return r.inst.str(r.result)
	case 2:
		return rt.ToValue(r.message)
	case 3:
		return rt.ToValue(float64(r.latency) / float64(time.Millisecond))
	case 4:
		return r.inst.str(r.datanode.UUID)
	case 5:
		return r.inst.str(r.datanode.Addr)
	case 6:
		return rt.ToValue(r.sent)
	case 7:
		return rt.ToValue(r.received)
	}
	return rt.ToValue(r.attempts)
}

// index returns the position of key in resultKeys, or -1.
func (r *echoResult) index(key string) int {
	for i, k := range resultKeys {
		if k == key {
			if r.overrides().deleted&(1<<i) != 0 {
				return -1
			}
			return i
		}
	}
	return -1
}

// Get implements goja.DynamicObject.
func (r *echoResult) Get(key string) goja.Value {
	if v, ok := r.overrides().extra[key]; ok {
		return v
	}
	if i := r.index(key); i >= 0 {
		return r.builtin(i)
	}
	return nil
}

// Set implements goja.DynamicObject: an assigned value overrides or adds a property.
func (r *echoResult) Set(key string, val goja.Value) bool {
	o := r.mutable()
	if o.extra == nil {
		o.extra = map[string]goja.Value{}
	}
	if _, ok := o.extra[key]; !ok && r.index(key) < 0 {
		o.extraKeys = append(o.extraKeys, key)
	}
	o.extra[key] = val
	return true
}

// Has implements goja.DynamicObject.
func (r *echoResult) Has(key string) bool {
	_, ok := r.overrides().extra[key]
	return ok || r.index(key) >= 0
}

// Delete implements goja.DynamicObject.
func (r *echoResult) Delete(key string) bool {
	if i := r.index(key); i >= 0 {
		r.mutable().deleted |= 1 << i
	}
	if o := r.overrides(); o.extra != nil {
		if _, ok := o.extra[key]; ok {
			delete(o.extra, key)
			o.extraKeys = slices.DeleteFunc(o.extraKeys, func(k string) bool { return k == key })
		}
	}
	return true
}

// Keys implements goja.DynamicObject.
func (r *echoResult) Keys() []string {
	o := r.overrides()
	keys := make([]string, 0, len(resultKeys)+len(o.extraKeys))
	for i, k := range resultKeys {
		if o.deleted&(1<<i) == 0 {
			keys = append(keys, k)
		}
	}
	return append(keys, o.extraKeys...)
}
