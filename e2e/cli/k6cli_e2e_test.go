package cli

import (
	"strings"
	"testing"
	"time"
)

// TestK6CommandLineHabits: k6's commands refuse a command line as k6 does (exit -1, 255), dnecho's
// own with 2; k6's root flags are taken where no command follows, and -v is --verbose there too
// (the help, as `k6 -v` prints), not the version.
func TestK6CommandLineHabits(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "s.js", `export default function () {}`)
	for _, tc := range []struct {
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{[]string{"run", "--bogus", script}, 255, "unknown flag: --bogus"},
		{[]string{"run"}, 255, "accepts 1 arg(s), received 0"},
		{[]string{"run", "-u", "many", script}, 255, `invalid argument "many"`},
		{[]string{"archive", "--bogus", script}, 255, "unknown flag: --bogus"},
		{[]string{"inspect", "--bogus", script}, 255, "unknown flag: --bogus"},
		{[]string{"version", "--bogus"}, 255, "unknown flag: --bogus"},
		{[]string{"cluster", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"aggregate", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"--quiet", "--help"}, 0, "Available Commands:"},
		{[]string{"-q", "-h"}, 0, "Available Commands:"},
		{[]string{"-v"}, 0, "Available Commands:"},
		{[]string{"--version"}, 0, "dnecho v"},
	} {
		r := dnecho(t, 30*time.Second, tc.args...)
		if r.code != tc.code || !strings.Contains(r.all(), tc.out) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", tc.args, r.code, tc.code, tc.out, r.all())
		}
		if tc.code == 0 && tc.args[0] == "-v" && strings.Contains(r.stdout, "dnecho v") {
			t.Errorf("-v printed the version:\n%s", r.stdout)
		}
	}
}

// TestSummaryModesOfK6V1: --summary-mode=legacy prints k6 v1's legacy layout (checks by group,
// then every metric, marked by its thresholds) with a notice; --no-summary and K6_NO_SUMMARY
// print no summary, and run no handleSummary, as --summary-mode=disabled.
func TestSummaryModesOfK6V1(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "s.js", `import { check } from 'k6';
export const options = { iterations: 2, thresholds: { checks: ['rate>0.5'], iterations: ['count>100'] } };
export default function () { check(1, { 'is one': (v) => v === 1 }); }`)
	r := dnecho(t, 60*time.Second, "run", "-q", "--summary-mode=legacy", script)
	if r.code != 99 {
		t.Fatalf("legacy: exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "     ✓ is one\n", "   ✓ checks.", ": 100.00% 2 out of 2", "   ✗ iterations.", `summary mode \"legacy\"`)
	if strings.Contains(r.stdout, "TOTAL RESULTS") || strings.Contains(r.stdout, "THRESHOLDS") {
		t.Errorf("legacy printed the compact layout:\n%s", r.stdout)
	}
	handled := writeRunScript(t, "h.js", `export const options = { iterations: 1 };
export default function () {}
export function handleSummary() { return { stdout: 'HANDLED' }; }`)
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"--no-summary"}},
		{[]string{"K6_NO_SUMMARY=true"}, nil},
		{nil, []string{"--no-summary", "--summary-mode", "full"}}, // k6 reads --no-summary first
	} {
		for _, s := range []string{script, handled} {
			r := dnechoEnv(t, tc.env, append(append([]string{"run", "-q"}, tc.args...), s)...)
			if r.code != 0 && r.code != 99 || strings.Contains(r.stdout, "iterations") || strings.Contains(r.stdout, "HANDLED") {
				t.Errorf("%v %v: exit %d, a summary printed:\n%s", tc.env, tc.args, r.code, r.all())
			}
		}
	}
	r = dnecho(t, 60*time.Second, "run", "-q", "--no-summary", handled)
	mustContain(t, r, "--no-summary is deprecated")
}

// archive accepts run's own flags without listing them, because k6-operator passes a TestRun's
// arguments to both.
func TestArchiveAcceptsRunsFlags(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "s.js", `export default function () {}`)
	out := t.TempDir() + "/a.tar"
	r := dnecho(t, 60*time.Second, "archive", "-O", out, "--aggregator", "agg:6566", "--local-cluster", "-o", "json=x.json", script)
	if r.code != 0 {
		t.Errorf("archive with run's flags: exit %d\n%s", r.code, r.all())
	}
}
