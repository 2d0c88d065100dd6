package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAsyncLifecycle runs async setup, default, teardown and handleSummary end to end: the
// setup data is what setup's promise resolved to, and a rejection in an iteration is logged
// with its stack while the run goes on and exits 0.
func TestRunAsyncLifecycle(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "async.js", `
import { Counter } from 'k6/metrics';
const got = new Counter('got_token');
export async function setup() {
  await new Promise((r) => setTimeout(r, 5));
  return { token: 'abc' };
}
export default async function (data) {
  await null;
  if (data.token === 'abc') got.add(1);
  if (__ITER === 1) throw new Error('second iteration fails');
}
export async function teardown(data) {
  await null;
  console.log('teardown saw ' + data.token);
}
export async function handleSummary(data) {
  await new Promise((r) => setTimeout(r, 1));
  return { stdout: 'ASYNC SUMMARY got=' + data.metrics.got_token.values.count +
    ' iterations=' + data.metrics.iterations.values.count + '\n' };
}`)
	r := dnecho(t, runLimit, "run", "-q", "-i", "3", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "ASYNC SUMMARY got=3 iterations=3", "teardown saw abc",
		"Uncaught (in promise) Error: second iteration fails", "async.js:11:")
}

// TestRunAsyncSetupRejection: a rejected setup is a script error (exit 107) and teardown is not run.
func TestRunAsyncSetupRejection(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "setup.js", `
export async function setup() { await null; throw new Error('no setup'); }
export default function () {}
export function teardown() { console.log('TEARDOWN RAN'); }`)
	r := dnecho(t, runLimit, "run", "-q", path)
	if r.code != 107 {
		t.Fatalf("exit %d, want 107\n%s", r.code, r.all())
	}
	mustContain(t, r, "Uncaught (in promise) Error: no setup")
	if strings.Contains(r.all(), "TEARDOWN RAN") {
		t.Errorf("teardown ran after a failed setup")
	}
}

// TestRunHandleSummaryFallbacks: a handleSummary that throws, rejects or is not a function is
// logged and the default summary is printed instead; the exit code is unchanged.
func TestRunHandleSummaryFallbacks(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ export, log string }{
		"throws":       {"export function handleSummary() { throw new Error('summary broke'); }", "Error: summary broke"},
		"rejects":      {"export async function handleSummary() { await null; throw new Error('late break'); }", "Uncaught (in promise) Error: late break"},
		"not function": {"export const handleSummary = { stdout: 'x' };", "exported identifier handleSummary must be a function"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := writeRunScript(t, "hs.js", countingScript+tc.export)
			r := dnecho(t, runLimit, "run", "-q", "-i", "2", path)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			mustContain(t, r, "failed to handle the end-of-test summary", tc.log)
			if !strings.Contains(r.stdout, "TOTAL RESULTS") {
				t.Errorf("no default summary on stdout:\n%s", r.stdout)
			}
		})
	}
}

// TestRunTimersGlobalAndModule uses the four timer functions from k6/timers and as globals.
func TestRunTimersGlobalAndModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	export := filepath.Join(dir, "summary.json")
	path := writeRunScript(t, "timers.js", `
import { setTimeout as later, clearInterval } from 'k6/timers';
import { Counter } from 'k6/metrics';
const ticks = new Counter('ticks');
export default function () {
  let n = 0;
  const id = setInterval(() => { ticks.add(1); if (++n === 3) clearInterval(id); }, 1);
  later(() => ticks.add(10), 2);
  clearTimeout(setTimeout(() => ticks.add(100), 1));
}`)
	r := dnecho(t, runLimit, "run", "-q", "-i", "2", "--summary-export", export, path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if got := readExport(t, export).count("ticks"); got != 26 {
		t.Errorf("ticks %v, want 26 (3 interval ticks and one timeout per iteration)", got)
	}
}
