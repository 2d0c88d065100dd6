package xdnecho

import (
	"fmt"
	"math"
	"strings"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/datanode"
)

// echoRequestNames are the keys client.echo({...}) accepts.
var echoRequestNames = echoRequestFields[:]

// requestShape is what an Echo request carries on the wire; equal shapes share one encoded
// datanode.Prepared.
type requestShape struct {
	payloadReq  int64 // bytes
	payloadResp int32 // bytes, after freon's cap
	sleepMs     int32
	readOnly    bool
}

// defaultShape is client.echo() without arguments: empty payloads, read-only as freon forces it
// over gRPC (spec ozone-echo.md §6.2).
var defaultShape = requestShape{readOnly: true}

// echoCall is one parsed client.echo argument.
type echoCall struct {
	shape requestShape
	throw bool
	tags  *metrics.Tags // per-call tags; nil when none
	// throwDefault is the Client's throw option the call was parsed with (part of the memo key).
	throwDefault bool
}

// requestMemo remembers the last request object a VU passed to echo and what it parsed to, so
// the usual script shape — one `const request = {...}` object passed on every call — is validated
// and parsed once. Field values are read again on every call and compared with the remembered ones
// (strict equality: a changed value, or a different tags object, parses afresh), so mutating the
// object between calls is honoured. A VU's memo is used only from that VU's goroutine.
type requestMemo struct {
	obj    *goja.Object
	values [len(echoRequestFields)]goja.Value
	call   echoCall
}

// echoRequestFields are read in this order by the memo.
var echoRequestFields = [...]string{"payloadReq", "payloadResp", "uncapped", "sleepMs", "readOnly", "throw", "tags"}

// parse returns the parsed request for v, from the memo when v is the remembered object with the
// same field values.
func (m *requestMemo) parse(vu modules.VU, v goja.Value, throwDefault bool) (echoCall, error) {
	obj, ok := v.(*goja.Object)
	if !ok || isAbsent(v) {
		return parseEcho(vu, v, throwDefault)
	}
	var values [len(echoRequestFields)]goja.Value
	for i, k := range echoRequestFields {
		values[i] = obj.Get(k)
	}
	if obj == m.obj && m.call.throwDefault == throwDefault && sameValues(values, m.values) {
		return m.call, nil
	}
	c, err := parseEcho(vu, v, throwDefault)
	if err != nil {
		m.obj = nil
		return c, err
	}
	m.obj, m.values, m.call = obj, values, c
	return c, nil
}

func sameValues(a, b [len(echoRequestFields)]goja.Value) bool {
	for i := range a {
		switch {
		case a[i] == nil || b[i] == nil:
			if a[i] != b[i] {
				return false
			}
		case !a[i].StrictEquals(b[i]):
			return false
		}
	}
	return true
}

// parseEcho reads client.echo's argument. Errors are programming errors in the script (unknown
// key, bad size): the caller throws them whatever the throw option says.
func parseEcho(vu modules.VU, v goja.Value, throwDefault bool) (echoCall, error) {
	c := echoCall{shape: defaultShape, throw: throwDefault, throwDefault: throwDefault}
	if isAbsent(v) {
		return c, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return c, fmt.Errorf("the request must be an object such as { payloadResp: '1KB' }, got %s", v.String())
	}
	var resp int64
	uncapped := false
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if isAbsent(val) {
			continue
		}
		var err error
		switch k {
		case "payloadReq":
			c.shape.payloadReq, err = parseSize(k, val)
			if err == nil && c.shape.payloadReq > datanode.DefaultMaxMessageSize {
				err = fmt.Errorf("payloadReq %d bytes exceeds the 32 MiB gRPC message limit of Ozone", c.shape.payloadReq)
			}
		case "payloadResp":
			resp, err = parseSize(k, val)
		case "uncapped":
			uncapped, err = flag(k, val)
		case "sleepMs":
			c.shape.sleepMs, err = sleepMs(val)
		case "readOnly":
			c.shape.readOnly, err = flag(k, val)
		case "throw":
			c.throw, err = flag(k, val)
		case "tags":
			c.tags = modules.TagsArgument(vu, val)
		default:
			err = fmt.Errorf("unknown request field %q; allowed: %s", k, strings.Join(echoRequestNames, ", "))
		}
		if err != nil {
			return c, err
		}
	}
	if c.shape.payloadResp, ok = responseSize(resp, uncapped); !ok {
		return c, fmt.Errorf("payloadResp %d bytes does not fit the request's 32-bit field", resp)
	}
	return c, nil
}

// responseSize applies freon's cap (min(size, 2097151) bytes; spec ozone-echo.md §6.2) unless
// uncapped, in which case only the int32 wire field limits it.
func responseSize(n int64, uncapped bool) (int32, bool) {
	switch {
	case !uncapped:
		return int32(min(n, freon.MaxResponseBytes)), true
	case n > math.MaxInt32:
		return 0, false
	}
	return int32(n), true
}

func sleepMs(v goja.Value) (int32, error) {
	switch x := v.Export().(type) {
	case int64:
		if x >= 0 && x <= math.MaxInt32 {
			return int32(x), nil
		}
	case float64:
		if x >= 0 && x <= math.MaxInt32 && x == math.Trunc(x) {
			return int32(x), nil
		}
	}
	return 0, fmt.Errorf("sleepMs %s: want a whole number of milliseconds, 0 or more", v.String())
}

func flag(name string, v goja.Value) (bool, error) {
	b, ok := v.Export().(bool)
	if !ok {
		return false, fmt.Errorf("%s %s: want true or false", name, v.String())
	}
	return b, nil
}
