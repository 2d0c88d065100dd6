// Package builtin builds the outputs dnecho ships from -o/--out values.
package builtin

import (
	"fmt"

	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/csv"
	"github.com/dnecho/dnecho/engine/output/json"
)

// New builds the output named by an -o value "type[=arg]"; p.Arg is replaced by arg.
func New(spec string, p output.Params) (output.Output, error) {
	typ, arg := output.ParseSpec(spec)
	p.Arg = arg
	switch typ {
	case "json":
		return json.New(p)
	case "csv":
		return csv.New(p)
	}
	return nil, fmt.Errorf("unsupported output type %q: available are csv, json", typ)
}
