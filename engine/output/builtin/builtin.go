// Package builtin builds the outputs dnecho ships from -o/--out values.
package builtin

import (
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/csv"
	"github.com/dnecho/dnecho/engine/output/json"
)

// New builds the output named by an -o value "type[=arg]"; p.Arg is replaced by arg. An empty
// arg after "=" is refused: it is a mistake (a shell variable that expanded to nothing), and
// taking it as "no argument" would quietly write to the type's default destination.
func New(spec string, p output.Params) (output.Output, error) {
	typ, arg := output.ParseSpec(spec)
	if strings.Contains(spec, "=") && strings.TrimSpace(arg) == "" {
		return nil, fmt.Errorf("nothing after %q: give a destination, e.g. -o %s=results.%s, or -o %s alone for its default",
			typ+"=", typ, typ, typ)
	}
	p.Arg = arg
	switch typ {
	case "json":
		return json.New(p)
	case "csv":
		return csv.New(p)
	}
	return nil, fmt.Errorf("unsupported output type %q: available are csv, json", typ)
}
