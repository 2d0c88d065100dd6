package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/internal/exitcode"
)

const counterScript = `
import { Counter } from 'k6/metrics';
const done = new Counter('done');
export default function () { done.add(1); }
`

func TestExactIterationCounts(t *testing.T) {
	cases := []struct {
		name   string
		script string
		cli    options.Options
		want   float64
	}{
		{"shared-iterations from the CLI", counterScript, cliIterations(4, 25), 25},
		{"per-vu-iterations scenario", counterScript + `
export const options = { scenarios: { pv: { executor: 'per-vu-iterations', vus: 3, iterations: 4 } } };`, options.Options{}, 12},
		{"no options: one iteration", counterScript, options.Options{}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := runScript(t, c.script, c.cli, nil, nil)
			if out.err != nil {
				t.Fatalf("Run: %v\n%s", out.err, out.logs)
			}
			if got := metricValue(out.res.Summary, "done", "count"); got != c.want {
				t.Errorf("done count %v, want %v", got, c.want)
			}
			if got := out.res.Stats.IterationsCompleted; got != int64(c.want) {
				t.Errorf("completed iterations %d, want %v", got, c.want)
			}
			if !strings.Contains(out.stdout, "TOTAL RESULTS") {
				t.Errorf("no text summary on stdout:\n%s", out.stdout)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		name     string
		script   string
		cli      options.Options
		code     int
		errText  string
		teardown bool // whether teardown must have run
	}{
		{name: "success", script: `export default function () {}
export function teardown() { console.log('TEARDOWN'); }`, code: 0, teardown: true},
		{name: "syntax error", script: "export default function () {\n  let x = ;\n}", code: 107, errText: "test.js:2:"},
		{name: "init exception", script: "throw new Error('init boom');\nexport default function () {}", code: 107, errText: "init boom"},
		{name: "setup exception skips teardown", script: `export function setup() { throw new Error('setup boom'); }
export default function () {}
export function teardown() { console.log('TEARDOWN'); }`, code: 107, errText: "setup boom"},
		{name: "setup timeout", script: `export const options = { setupTimeout: '200ms' };
export function setup() { while (true) {} }
export default function () {}`, code: 100, errText: "setup() execution timed out"},
		{name: "teardown timeout", script: `export const options = { teardownTimeout: '200ms' };
export default function () {}
export function teardown() { console.log('TEARDOWN'); while (true) {} }`, code: 101, teardown: true},
		{name: "abort runs teardown", script: `import exec from 'k6/execution';
export default function () { exec.test.abort('enough'); }
export function teardown() { console.log('TEARDOWN'); }`, cli: cliIterations(1, 5), code: 108, errText: "enough", teardown: true},
		{name: "abort in setup", script: `import exec from 'k6/execution';
export function setup() { exec.test.abort('early'); }
export default function () {}`, code: 108, errText: "early"},
		{name: "fail", script: `import exec from 'k6/execution';
export default function () { exec.test.fail('bad run'); }`, code: 110, errText: "bad run"},
		{name: "threshold crossed", script: `export const options = { thresholds: { iterations: ['count>10'] } };
export default function () {}`, cli: cliIterations(1, 3), code: 99, errText: "thresholds on metrics 'iterations' have been crossed"},
		{name: "threshold on empty rate passes", script: `import { Rate } from 'k6/metrics';
const r = new Rate('never');
export const options = { thresholds: { never: ['rate>0.5'] } };
export default function () {}`, code: 0},
		{name: "unknown metric", script: `export const options = { thresholds: { nope: ['count>1'] } };
export default function () {}`, code: 104, errText: `no metric name "nope" found`},
		{name: "bad threshold expression", script: `export const options = { thresholds: { iterations: ['count >> 1'] } };
export default function () {}`, code: 104, errText: "iterations"},
		{name: "bad scenario option", script: `export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1s', rate: 3 } } };
export default function () {}`, code: 104, errText: "rate"},
		{name: "bad executor value", script: `export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 0 } } };
export default function () {}`, code: 104, errText: "scenario s"},
		{name: "missing default export", script: `export function other() {}`, code: 104, errText: "function 'default' not found in exports"},
		{name: "missing exec function", script: `export const options = { scenarios: { s: { executor: 'shared-iterations', exec: 'nothere' } } };
export default function () {}`, code: 104, errText: "function 'nothere' not found in exports"},
		{name: "bad summary mode", script: `export default function () {}`, cli: options.Options{SummaryMode: null.From("loud")}, code: 104, errText: "summary mode"},
		{name: "bad output", script: `export default function () {}`, cli: options.Options{Out: []string{"kafka=x"}}, code: 104, errText: "kafka"},
		{name: "iteration exception does not fail the run", script: `export default function () { throw new Error('iter boom'); }`, cli: cliIterations(1, 2), code: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := runScript(t, c.script, c.cli, nil, nil)
			if out.code != c.code {
				t.Fatalf("exit code %d (%v), want %d\nlogs:\n%s", out.code, out.err, c.code, out.logs)
			}
			if c.errText != "" && (out.err == nil || !strings.Contains(out.err.Error(), c.errText)) {
				t.Errorf("error %q lacks %q", out.err, c.errText)
			}
			if ran := strings.Contains(out.logs, "TEARDOWN"); ran != c.teardown {
				t.Errorf("teardown ran: %v, want %v\nlogs:\n%s", ran, c.teardown, out.logs)
			}
		})
	}
}

func TestIterationExceptionLoggedOnce(t *testing.T) {
	out := runScript(t, `export default function () { throw new Error('iter boom'); }`, cliIterations(1, 1), nil, nil)
	if n := strings.Count(out.logs, "iter boom"); n != 1 {
		t.Errorf("the exception is logged %d times, want once:\n%s", n, out.logs)
	}
}

func TestAbortOnFailThreshold(t *testing.T) {
	out := runScript(t, `
import { sleep } from 'k6';
export const options = {
  scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '30s' } },
  thresholds: { iterations: [{ threshold: 'count<2', abortOnFail: true }] },
};
export default function () { sleep(0.05); }
export function teardown() { console.log('TEARDOWN'); }`, options.Options{}, nil, nil)
	if out.code != 99 || !strings.Contains(out.err.Error(), "abortOnFail") {
		t.Fatalf("exit %d (%v), want 99 with the abortOnFail message", out.code, out.err)
	}
	if out.took > 10*time.Second {
		t.Errorf("took %s: the threshold watch did not stop the test", out.took)
	}
	if !strings.Contains(out.logs, "TEARDOWN") || out.res.Summary == nil {
		t.Errorf("teardown and summary must still run after an abort")
	}
}

func TestGracefulStop(t *testing.T) {
	out := runScript(t, `
import { sleep } from 'k6';
export default function () { sleep(0.1); console.log('ITERATION DONE'); }
export function teardown() { console.log('TEARDOWN'); }`,
		options.Options{VUs: null.From[int64](2), Duration: null.From(time.Minute)}, nil,
		func(soft, hard context.CancelFunc, logged func(string) bool) {
			if logged("ITERATION DONE") {
				soft()
			}
		})
	if out.code != exitcode.ExternalAbort || !errors.Is(out.err, ErrInterrupted) {
		t.Fatalf("exit %d (%v), want 105", out.code, out.err)
	}
	if out.took > 5*time.Second {
		t.Errorf("took %s", out.took)
	}
	if out.res.Stats.IterationsCompleted == 0 || out.res.Stats.IterationsInterrupted != 0 {
		t.Errorf("stats %+v: iterations should finish within gracefulStop", out.res.Stats)
	}
	if !strings.Contains(out.logs, "TEARDOWN") || !strings.Contains(out.stdout, "TOTAL RESULTS") {
		t.Errorf("teardown and summary must run after a graceful stop:\n%s\n%s", out.logs, out.stdout)
	}
}

func TestHardStop(t *testing.T) {
	out := runScript(t, `
import { sleep } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1m', gracefulStop: '1m' } } };
export default function () { console.log('ITERATION STARTED'); sleep(30); }
export function teardown() { console.log('TEARDOWN'); }`, options.Options{}, nil,
		func(soft, hard context.CancelFunc, logged func(string) bool) {
			if logged("ITERATION STARTED") {
				soft() // the iteration may go on for its 1m gracefulStop…
				hard() // …until the second Ctrl-C
			}
		})
	if out.code != exitcode.ExternalAbort {
		t.Fatalf("exit %d (%v), want 105", out.code, out.err)
	}
	if out.took > 5*time.Second {
		t.Errorf("took %s: the hard stop did not interrupt the iteration", out.took)
	}
	if out.res.Stats.IterationsInterrupted != 1 || strings.Contains(out.logs, "TEARDOWN") {
		t.Errorf("stats %+v, teardown in logs: %v", out.res.Stats, strings.Contains(out.logs, "TEARDOWN"))
	}
}

func TestStopDuringSetup(t *testing.T) {
	out := runScript(t, `
import { sleep } from 'k6';
export function setup() { console.log('SETUP'); sleep(30); }
export default function () { console.log('ITERATION'); }
export function teardown() { console.log('TEARDOWN'); }`, options.Options{}, nil,
		func(soft, hard context.CancelFunc, logged func(string) bool) {
			if logged("SETUP") {
				soft()
			}
		})
	if out.code != exitcode.ExternalAbort || out.took > 5*time.Second {
		t.Fatalf("exit %d (%v) after %s, want 105 at once", out.code, out.err, out.took)
	}
	if strings.Contains(out.logs, "TEARDOWN") || strings.Contains(out.logs, "ITERATION") {
		t.Errorf("nothing may run after an interrupted setup:\n%s", out.logs)
	}
}

// closerRoot is a module root holding a resource the test must release.
type closerRoot struct{ closed *atomic.Int32 }

func (r closerRoot) NewModuleInstance(modules.VU) (modules.Instance, error) {
	return closerInstance{}, nil
}
func (r closerRoot) Close() error { r.closed.Add(1); return nil }

type closerInstance struct{}

func (closerInstance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"ping": func() string { return "pong" }}}
}

func TestModuleRootsClosed(t *testing.T) {
	var closed atomic.Int32
	out := runScript(t, `
import { ping } from 'k6/x/closer';
export default function () { if (ping() !== 'pong') throw new Error('bad'); }`, cliIterations(2, 4),
		func(c *Config) {
			c.Modules = map[string]modules.Factory{"k6/x/closer": func() modules.Module { return closerRoot{&closed} }}
		}, nil)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if n := closed.Load(); n != 1 {
		t.Errorf("root closed %d times, want once", n)
	}
}

func TestStartDelayMetric(t *testing.T) {
	const startDelayMetric = "app_iteration_start_delay"
	out := runScript(t, `
export const options = {
  scenarios: { ar: { executor: 'constant-arrival-rate', rate: 20, duration: '1s', preAllocatedVUs: 2 } },
  thresholds: { app_iteration_start_delay: ['p(95)<1000'] },
};
export default function () {}`, options.Options{}, func(c *Config) { c.StartDelayMetric = startDelayMetric }, nil)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if n := metricValue(out.res.Summary, startDelayMetric, "avg"); n < 0 {
		t.Errorf("%s missing from the summary", startDelayMetric)
	}
	if !strings.Contains(out.stdout, startDelayMetric) {
		t.Errorf("%s not shown in the text summary:\n%s", startDelayMetric, out.stdout)
	}
}

func TestExecTestOptionsAndRunTags(t *testing.T) {
	out := runScript(t, `
import exec from 'k6/execution';
export const options = { tags: { team: 'ozone' } };
export default function () {
  const o = exec.test.options;
  if (o.scenarios.default.executor !== 'shared-iterations') exec.test.fail('scenarios: ' + JSON.stringify(o.scenarios));
  if (o.vus !== undefined || o.iterations !== undefined) exec.test.fail('shortcuts leaked');
  if (o.tags.team !== 'ozone') exec.test.fail('tags: ' + JSON.stringify(o.tags));
}`, cliIterations(1, 2), nil, nil)
	if out.err != nil {
		t.Fatalf("%v\n%s", out.err, out.logs)
	}
}

func TestSystemTagsAndOutputs(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out.json")
	exportPath := filepath.Join(dir, "export.json")
	out := runScript(t, `
import { check } from 'k6';
export default function () { check(1, { 'one': (v) => v === 1 }); }`,
		options.Options{
			Iterations: null.From[int64](3), SystemTags: []string{"check"}, Out: []string{"json=" + jsonPath},
			SummaryExport: null.From(exportPath), SummaryMode: null.From("disabled"),
		}, nil, nil)
	if out.err != nil {
		t.Fatal(out.err)
	}
	samples, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(samples), `"check":"one"`) || strings.Contains(string(samples), `"scenario"`) {
		t.Errorf("json output: only the check tag is enabled:\n%s", samples)
	}
	if out.stdout != "" || out.res.Summary != nil {
		t.Errorf("summary disabled, yet stdout %q", out.stdout)
	}
	if _, err := os.Stat(exportPath); !os.IsNotExist(err) {
		t.Errorf("a disabled summary writes no export (stat: %v)", err)
	}
}

func TestStopWhileLoading(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Script: writeScript(t, "loop.js", "while (true) {}\nexport default function () {}")})
	if ExitCode(err) != exitcode.ExternalAbort {
		t.Errorf("exit %d (%v), want 105", ExitCode(err), err)
	}
}

// TestResultsNotWrittenFailTheRun: a run whose samples or summary export could not be written
// must not exit 0; the reason names what was lost. A failing test keeps its own code.
func TestResultsNotWrittenFailTheRun(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	unwritable := filepath.Join(t.TempDir(), "no-such-dir", "export.json")
	cases := []struct {
		name   string
		opts   options.Options
		script string
		code   int
		want   string
	}{
		{"json output on a full disk", options.Options{Out: []string{"json=/dev/full"}},
			`export default function () {}`, exitcode.Failure, "output json (/dev/full)"},
		{"summary export in a missing directory", options.Options{SummaryExport: null.From(unwritable)},
			`export default function () {}`, exitcode.Failure, "summary export " + unwritable},
		{"a failed test keeps its code", options.Options{Out: []string{"json=/dev/full"}},
			`import exec from 'k6/execution';
export default function () { exec.test.fail('bad'); }`, exitcode.MarkedAsFailed, "bad"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Iterations = null.From[int64](2)
			out := runScript(t, c.script, c.opts, nil, nil)
			if out.code != c.code || out.err == nil || !strings.Contains(out.err.Error(), c.want) {
				t.Fatalf("exit %d (%v), want %d naming %q", out.code, out.err, c.code, c.want)
			}
			if c.code == exitcode.Failure && !strings.Contains(out.err.Error(), "the results were not all written") {
				t.Errorf("error %q does not say the results were lost", out.err)
			}
		})
	}
}
