package xdnecho

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// requestField is one key of client.echo({...}).
type requestField struct {
	name  string
	field echo.Field // "" for the module's own (throw, tags)
	size  bool       // a size: bytes, or a string such as '4KB'
}

// requestFields are read in this order by the memo and listed in this order by errors.
var requestFields = [...]requestField{
	{name: "payloadReq", field: echo.FieldPayloadReq, size: true},
	{name: "payloadResp", field: echo.FieldPayloadResp, size: true},
	{name: "uncapped", field: echo.FieldUncapped},
	{name: "sleepMs", field: echo.FieldSleepMs},
	{name: "readOnly", field: echo.FieldReadOnly},
	{name: "throw"},
	{name: "tags"},
}

// echoCall is one parsed client.echo argument.
type echoCall struct {
	req   echo.Request
	throw bool
	tags  *metrics.Tags // per-call tags; nil when none
	// throwDefault is the Client's throw option the call was parsed with (part of the memo key).
	throwDefault bool
}

// baseRequest is client.echo() without arguments: empty payloads, and read-only as the Client's
// readOnly option says (always over gRPC, where freon forces it; over Ratis false means a write).
func baseRequest(spec echo.Spec) echo.Request {
	return echo.Request{ReadOnly: spec.Request.ReadOnly || spec.Transport != echo.TransportRatis}
}

// requestMemo remembers the last request object a VU passed to echo and what it parsed to, so
// the usual script shape — one `const request = {...}` object passed on every call — is validated
// and parsed once. Field values are read again on every call and compared with the remembered ones
// (strict equality: a changed value, or a different tags object, parses afresh), so mutating the
// object between calls is honoured. A VU's memo is used only from that VU's goroutine.
type requestMemo struct {
	obj    *goja.Object
	values [len(requestFields)]goja.Value
	call   echoCall
}

// parse returns the parsed request for v, from the memo when v is the remembered object with the
// same field values.
func (m *requestMemo) parse(vu modules.VU, v goja.Value, base echo.Request, throwDefault bool) (echoCall, error) {
	obj, ok := v.(*goja.Object)
	if !ok || isAbsent(v) {
		return parseEcho(vu, v, base, throwDefault)
	}
	var values [len(requestFields)]goja.Value
	for i, f := range requestFields {
		values[i] = obj.Get(f.name)
	}
	if obj == m.obj && m.call.throwDefault == throwDefault && sameValues(values, m.values) {
		return m.call, nil
	}
	c, err := parseEcho(vu, v, base, throwDefault)
	if err != nil {
		m.obj = nil
		return c, err
	}
	m.obj, m.values, m.call = obj, values, c
	return c, nil
}

func sameValues(a, b [len(requestFields)]goja.Value) bool {
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

// parseEcho reads client.echo's argument over base, the Client's default request. Errors are
// programming errors in the script (unknown key, bad size): the caller throws them whatever the
// throw option says. A memo belongs to one Client, so base is the same on every call.
func parseEcho(vu modules.VU, v goja.Value, base echo.Request, throwDefault bool) (echoCall, error) {
	c := echoCall{req: base, throw: throwDefault, throwDefault: throwDefault}
	if isAbsent(v) {
		return c, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return c, fmt.Errorf("the request must be an object such as { payloadResp: '1KB' }, got %s", v.String())
	}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if isAbsent(val) {
			continue
		}
		if err := c.set(vu, k, val); err != nil {
			return c, err
		}
	}
	return c, nil
}

// set reads one request field.
func (c *echoCall) set(vu modules.VU, k string, val goja.Value) error {
	switch k {
	case "throw":
		var err error
		c.throw, err = boolean(k, val)
		return err
	case "tags":
		c.tags = modules.TagsArgument(vu, val)
		return nil
	}
	for _, f := range requestFields {
		if f.name != k {
			continue
		}
		s, err := requestForm(f, val)
		if err != nil {
			return err
		}
		return echo.Rename(c.req.Set(f.field, s), optionName)
	}
	names := make([]string, len(requestFields))
	for i, f := range requestFields {
		names[i] = f.name
	}
	return fmt.Errorf("unknown request field %q; allowed: %s", k, strings.Join(names, ", "))
}

// requestForm turns a request field's JS value into its string form: sizes are numbers of bytes
// or strings, sleepMs a whole number, the rest booleans.
func requestForm(f requestField, v goja.Value) (string, error) {
	switch x := v.Export().(type) {
	case int64:
		if f.size || f.field == echo.FieldSleepMs {
			return strconv.FormatInt(x, 10), nil
		}
	case float64:
		if (f.size || f.field == echo.FieldSleepMs) && x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		if f.size || f.field == echo.FieldSleepMs {
			return "", fmt.Errorf("%s %v: want a whole number", f.name, x)
		}
	case string:
		if f.size {
			return x, nil
		}
	case bool:
		if !f.size && f.field != echo.FieldSleepMs {
			return strconv.FormatBool(x), nil
		}
	}
	switch {
	case f.size:
		return "", fmt.Errorf("%s %s: %s", f.name, v.String(), echo.SizeHelp)
	case f.field == echo.FieldSleepMs:
		return "", fmt.Errorf("%s %s: want a whole number of milliseconds, 0 or more", f.name, v.String())
	}
	return "", fmt.Errorf("%s %s: want true or false", f.name, v.String())
}
