package dnecho

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
var echoRequestNames = []string{"payloadReq", "payloadResp", "uncapped", "sleepMs", "readOnly", "throw", "tags"}

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
}

// parseEcho reads client.echo's argument. Errors are programming errors in the script (unknown
// key, bad size): the caller throws them whatever the throw option says.
func parseEcho(vu modules.VU, v goja.Value, throwDefault bool) (echoCall, error) {
	c := echoCall{shape: defaultShape, throw: throwDefault}
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
