package cli

import (
	"strings"
	"testing"
)

// TestRunExitCodes checks k6's exit codes (grafana/k6 errext/exitcodes/codes.go), and ours for
// results that could not be written, on the built binary.
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script string
		args   []string
		code   int
		output []string // substrings of stdout+stderr
		absent []string
	}{
		{name: "success", code: 0, script: `export default function () {}`, output: []string{"TOTAL RESULTS", "iterations"}},
		{name: "threshold crossed at the end", code: 99, args: []string{"-i", "3"},
			script: `export const options = { thresholds: { iterations: ['count>100'] } };
export default function () {}`,
			output: []string{"thresholds on metrics 'iterations' have been crossed", "✗ 'count>100' count=3"}},
		{name: "threshold abortOnFail", code: 99,
			script: `import { sleep } from 'k6';
export const options = { vus: 1, duration: '30s', thresholds: { iterations: [{ threshold: 'count<1', abortOnFail: true }] } };
export default function () { sleep(0.05); }`,
			output: []string{"at least one has abortOnFail enabled, stopping test prematurely", "TOTAL RESULTS"}},
		{name: "no-thresholds", code: 0, args: []string{"--no-thresholds"},
			script: `export const options = { thresholds: { iterations: ['count>100'] } };
export default function () {}`, absent: []string{"THRESHOLDS"}},
		{name: "invalid option value", code: 104, args: []string{"--summary-time-unit", "h"},
			script: `export default function () {}`, output: []string{"summaryTimeUnit"}},
		{name: "invalid script option", code: 104,
			script: `export const options = { vus: 'many' };
export default function () {}`, output: []string{"vus"}},
		{name: "bad executor config names the option", code: 104,
			script: `export const options = { scenarios: { s: { executor: 'constant-arrival-rate', rate: 5, duration: '1s' } } };
export default function () {}`, output: []string{"scenario s has configuration errors", "preAllocatedVUs"}},
		{name: "unknown scenario key", code: 104,
			script: `export const options = { scenarios: { s: { executor: 'shared-iterations', iteratons: 5 } } };
export default function () {}`, output: []string{"iteratons"}},
		{name: "unknown metric in threshold", code: 104,
			script: `export const options = { thresholds: { no_such_metric: ['count>1'] } };
export default function () {}`, output: []string{`no metric name "no_such_metric" found`}},
		{name: "unknown metric in threshold: a hint", code: 104, args: []string{"--local-cluster"},
			script: `import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1 });
export const options = { thresholds: { dnecho_echo_latency: ['p(99)<10'] } };
export default function () { client.echo(); }`,
			output: []string{`no metric name "dnecho_echo_latency" found; did you mean "dnecho_req_duration"?`}},
		{name: "bad threshold expression", code: 104,
			script: `export const options = { thresholds: { iterations: ['p(99) < fast'] } };
export default function () {}`, output: []string{"invalid threshold defined on iterations"}},
		{name: "bad env name", code: 104, args: []string{"-e", "9LIVES=1"},
			script: `export default function () {}`, output: []string{"9LIVES"}},
		{name: "missing default export", code: 104,
			script: `export function setup() {}`, output: []string{"function 'default' not found in exports"}},
		{name: "missing exec function", code: 104,
			script: `export const options = { scenarios: { s: { executor: 'per-vu-iterations', exec: 'nope' } } };
export default function () {}`, output: []string{"function 'nope' not found in exports"}},
		{name: "syntax error", code: 107,
			script: "export default function () {\n  const x = {;\n}\n", output: []string{"script.js:2:"}},
		{name: "runtime error in init", code: 107,
			script: "const o = undefined;\nconst x = o.field;\nexport default function () {}\n",
			output: []string{"script.js:2:", "TypeError"}},
		{name: "exception in setup skips teardown", code: 107,
			script: `export function setup() { throw new Error('setup failed'); }
export default function () {}
export function teardown() { console.log('TEARDOWN RAN'); }`,
			output: []string{"setup failed"}, absent: []string{"TEARDOWN RAN"}},
		{name: "exec.test.abort", code: 108, args: []string{"-i", "5"},
			script: `import exec from 'k6/execution';
export default function () { exec.test.abort('giving up'); }
export function teardown() { console.log('TEARDOWN RAN'); }`,
			output: []string{"giving up", "TEARDOWN RAN", "TOTAL RESULTS"}},
		{name: "empty output destination", code: 104, args: []string{"-o", "csv="},
			script: `export default function () {}`, output: []string{`nothing after "csv="`}},
		{name: "results not written", code: 255, args: []string{"-o", "json=/dev/full"},
			script: `export default function () {}`, output: []string{"the results were not all written", "/dev/full"}},
		{name: "exec.test.fail", code: 110, args: []string{"-i", "2"},
			script: `import exec from 'k6/execution';
export default function () { exec.test.fail('not good'); }`,
			output: []string{"not good", "TOTAL RESULTS"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := writeRunScript(t, "script.js", c.script)
			r := dnecho(t, runLimit, append(append([]string{"run", "-q"}, c.args...), path)...)
			if r.code != c.code {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			mustContain(t, r, c.output...)
			for _, s := range c.absent {
				if strings.Contains(r.all(), s) {
					t.Errorf("output has %q\nstdout:\n%s\nstderr:\n%s", s, r.stdout, r.stderr)
				}
			}
		})
	}
}
