// Package output defines what an `-o/--out` output is, the parameters it is built from, and the
// pieces the built-in outputs share: batching with a periodic flush and file destinations.
package output

import (
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Output receives every sample of the run. The collector calls AddSamples from producer
// goroutines, so it must be safe for concurrent use, must not block on I/O and must not modify
// the batch; Stop flushes what is pending and releases the destination.
type Output interface {
	// Description is shown in the run header ("json (results.json)").
	Description() string
	Start() error
	AddSamples(batch []metrics.Sample)
	Stop() error
}

// Params is what an output is built from.
type Params struct {
	Arg    string            // the text after "type=" in -o type=arg
	Env    map[string]string // environment, for K6_* settings
	Stdout io.Writer         // destination for "-"; nil means os.Stdout
	// SystemTags are the enabled system tags; nil means metrics.DefaultSystemTags().
	SystemTags []string
	// Thresholds, when set, are described in the json output's Metric lines and shown by the
	// web dashboard.
	Thresholds *threshold.Set
	// Logger receives the outputs' warnings (a store that is down); nil discards them.
	Logger *slog.Logger
	// Charts names the metrics and tags the web dashboard charts; empty charts iterations.
	Charts Charts
	// Length is how long the test is expected to run when the front end knows it (a scenario's
	// duration, freon's --duration); 0 when it does not. The web dashboard sizes its period by it.
	Length time.Duration
}

// EnabledSystemTags returns p.SystemTags or the default set.
func (p Params) EnabledSystemTags() []string {
	if p.SystemTags == nil {
		return metrics.DefaultSystemTags()
	}
	return p.SystemTags
}

// ParseSpec splits an -o value "type=arg" at the first '='.
func ParseSpec(spec string) (typ, arg string) {
	typ, arg, _ = strings.Cut(spec, "=")
	return typ, arg
}
