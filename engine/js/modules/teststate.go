package modules

import (
	"encoding/json"
	"log/slog"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Test is the state one test run shares between all its VUs and modules. The runner creates it;
// modules read it. Fields are set before the first VU is created and not changed afterwards,
// except through the safe-for-concurrent-use types they point to.
type Test struct {
	// Registry holds the test's metrics; modules register their own metrics here.
	Registry *metrics.Registry
	// Pusher takes the samples a module makes off any VU (a root's periodic probe), where the
	// VUs' samples go. A VU's own samples go through VU.Push, which batches them.
	Pusher metrics.Pusher
	// Builtin are the built-in metrics the runner and the k6 modules emit.
	Builtin *BuiltinMetrics
	// Groups is the tree of groups and checks with their counts (the summary's root_group).
	Groups *checktree.Tree
	// Outcome records exec.test.abort and exec.test.fail.
	Outcome *Outcome
	// Exec answers exec.instance questions; nil reads as all zeros.
	Exec ExecutionState
	// Logger receives script logs (console, exceptions, warnings).
	Logger *slog.Logger
	// Throw is the `throw` option: warnings about bad metric values and tags become exceptions.
	Throw bool
	// Options is exec.test.options: the consolidated options as JSON, without vus, iterations,
	// duration and stages.
	Options json.RawMessage
}

// Warn logs a script warning, or throws it as an exception when the throw option is on. It is
// meant for the non-fatal input problems k6 reports as warnings
// (docs/k6-compat.md#module-k6metrics) (bad metric values, tag values).
func (t *Test) Warn(vu VU, msg string) {
	if t.Throw {
		ThrowMessage(vu.Runtime(), msg)
	}
	t.Logger.Warn(msg, "vu", vu.ID(), "iter", vu.Iteration())
}
