package js

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dop251/goja"
)

// HandledSummary is what handleSummary asked for.
type HandledSummary struct {
	// Handled is false when the script has no handleSummary or it returned nothing: the caller
	// prints the default end-of-test summary.
	Handled bool
	// Outputs are the returned object's entries, in its key order.
	Outputs []SummaryOutput
}

// SummaryOutput is one entry of handleSummary's result.
type SummaryOutput struct {
	// Destination is "stdout", "stderr" or a file path (relative to the working directory).
	Destination string
	Data        []byte
}

// ErrSummaryNotFunction is HandleSummary's error for a script whose handleSummary export is not a
// function (grafana/k6 internal/js/runner.go words it so).
var ErrSummaryNotFunction = errors.New("exported identifier handleSummary must be a function")

// HandleSummary calls the script's handleSummary(data) in a fresh VU with __VU = 0. data is the
// summary object as JSON (docs/k6-compat.md#handlesummary). The function may be async: its
// resolved value is used. The caller only logs a returned error ("failed to handle the end-of-test
// summary") and prints the default summary; ctx carries handleSummaryTimeout.
func (r *Script) HandleSummary(ctx context.Context, data []byte) (*HandledSummary, error) {
	if !r.functions["handleSummary"] {
		if r.exports["handleSummary"] {
			return nil, ErrSummaryNotFunction
		}
		return &HandledSummary{}, nil
	}
	vu, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	arg, err := vu.parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("handleSummary: summary data: %w", err)
	}
	fn, _ := goja.AssertFunction(vu.exports.Get("handleSummary"))
	vu.arm(ctx)
	v, err := vu.call(ctx, fn, arg)
	vu.disarm()
	vu.Flush()
	if err != nil {
		return nil, stageError(ctx, "handleSummary", err)
	}
	return vu.summaryResult(v)
}

// summaryResult reads handleSummary's return value: an object of strings or ArrayBuffers.
func (vu *VU) summaryResult(v goja.Value) (*HandledSummary, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return &HandledSummary{}, nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("handleSummary must return an object, not %q", v.String())
	}
	res := &HandledSummary{Handled: true}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		var data []byte
		switch x := val.Export().(type) {
		case string:
			data = []byte(x)
		case goja.ArrayBuffer:
			data = append([]byte(nil), x.Bytes()...)
		case []byte:
			data = append([]byte(nil), x...)
		default:
			return nil, fmt.Errorf("handleSummary: the value of %q must be a string or an ArrayBuffer", k)
		}
		res.Outputs = append(res.Outputs, SummaryOutput{Destination: k, Data: data})
	}
	return res, nil
}

// Write delivers the outputs: "stdout" and "stderr" to the given writers, anything else to the
// file of that name (created or truncated, mode 0666 before umask). It attempts every output and
// returns all failures.
func (s *HandledSummary) Write(stdout, stderr io.Writer) error {
	var errs []error
	for _, o := range s.Outputs {
		var err error
		switch o.Destination {
		case "stdout":
			_, err = stdout.Write(o.Data)
		case "stderr":
			_, err = stderr.Write(o.Data)
		default:
			err = os.WriteFile(o.Destination, o.Data, 0o666)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("summary output %q: %w", o.Destination, err))
		}
	}
	return errors.Join(errs...)
}
