package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMinIterationDuration: with a 1 s minimum, one VU looping for 2 s completes at most 3
// iterations (without it, thousands).
func TestRunMinIterationDuration(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"option": {"-e", "MIN=1s"},
		"flag":   {"--min-iteration-duration", "1s"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			export := filepath.Join(t.TempDir(), "summary.json")
			path := writeRunScript(t, "min.js", `
export const options = { vus: 1, duration: '2s', minIterationDuration: __ENV.MIN };
export default function () {}`)
			r := dnecho(t, runLimit, append(append([]string{"run", "-q", "--summary-export", export}, args...), path)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			if n := readExport(t, export).count("iterations"); n < 1 || n > 3 {
				t.Errorf("%v iterations in 2 s with a 1 s minimum", n)
			}
		})
	}
}

// TestRunExecutionSegmentFromOptions: two instances, each given its half in the script's
// options, run 12 shared iterations between them: 6 each, and the header says 50%. Flags win
// over the options.
func TestRunExecutionSegmentFromOptions(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "seg.js", countingScript+`
export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 4, iterations: 12 } },
  executionSegment: __ENV.SEG, executionSegmentSequence: '0,1/2,1',
};`)
	for _, tc := range []struct{ name, seg string }{{"first", "0:1/2"}, {"second", "1/2:1"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			export := filepath.Join(t.TempDir(), "summary.json")
			r := dnecho(t, runLimit, "run", "--summary-export", export, "-e", "SEG="+tc.seg, path)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			if n := readExport(t, export).count("done_iters"); n != 6 {
				t.Errorf("%v iterations, want 6 of 12", n)
			}
			mustContain(t, r, "(50.00%)")
		})
	}
	// The flags win over the script's options.
	export := filepath.Join(t.TempDir(), "summary.json")
	r := dnecho(t, runLimit, "run", "-q", "--summary-export", export, "-e", "SEG=0:1/2",
		"--execution-segment", "0:1/4", "--execution-segment-sequence", "0,1/4,1", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if n := readExport(t, export).count("done_iters"); n != 3 {
		t.Errorf("%v iterations in 0:1/4 of 12, want 3", n)
	}
}

// TestRunConsoleAndLogOutput: console output goes to the consoleOutput file; the log goes where
// --log-output says, with a file's level filter.
func TestRunConsoleAndLogOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeRunScript(t, "log.js", `
export const options = { iterations: 1, consoleOutput: __ENV.CONSOLE };
export default function () { console.log('CONSOLE LINE'); console.warn('CONSOLE WARNING'); }`)
	console := filepath.Join(dir, "console.txt")
	r := dnecho(t, runLimit, "run", "-q", "-e", "CONSOLE="+console, path)
	if r.code != 0 || strings.Contains(r.all(), "CONSOLE LINE") {
		t.Fatalf("exit %d, console output not redirected:\n%s", r.code, r.all())
	}
	if b, _ := os.ReadFile(console); !strings.Contains(string(b), "CONSOLE LINE") || !strings.Contains(string(b), "CONSOLE WARNING") {
		t.Errorf("console file:\n%s", b)
	}
	// --console-output does the same from the command line.
	console2 := filepath.Join(dir, "console2.txt")
	if r := dnecho(t, runLimit, "run", "-q", "--console-output", console2, path); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if b, _ := os.ReadFile(console2); !strings.Contains(string(b), "CONSOLE LINE") {
		t.Errorf("--console-output file:\n%s", b)
	}

	logFile := filepath.Join(dir, "k6.log")
	r = dnecho(t, runLimit, "run", "-q", "--log-output", "file="+logFile+",level=warning", path)
	if r.code != 0 || strings.Contains(r.stderr, "CONSOLE") {
		t.Fatalf("exit %d; the log is still on stderr:\n%s", r.code, r.all())
	}
	if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "CONSOLE WARNING") || strings.Contains(string(b), "CONSOLE LINE") {
		t.Errorf("log file (warnings and above only):\n%s", b)
	}
	r = dnecho(t, runLimit, "run", "-q", "--log-output", "stdout", path)
	if !strings.Contains(r.stdout, "CONSOLE LINE") || strings.Contains(r.stderr, "CONSOLE LINE") {
		t.Errorf("--log-output stdout:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	r = dnechoEnv(t, []string{"K6_LOG_OUTPUT=none"}, "run", "-q", path)
	if r.code != 0 || strings.Contains(r.all(), "CONSOLE") {
		t.Errorf("K6_LOG_OUTPUT=none: exit %d\n%s", r.code, r.all())
	}
	for _, bad := range []string{"loki", "file=", "file=" + filepath.Join(dir, "no", "such", "dir", "x.log"), "file=x.log,level=loud"} {
		if r := dnecho(t, runLimit, "run", "-q", "--log-output", bad, path); r.code != 104 {
			t.Errorf("--log-output %s: exit %d, want 104\n%s", bad, r.code, r.all())
		}
	}
}

// TestRunThresholdOnHTTPMetric: k6's HTTP metrics exist though nothing sends HTTP, so a
// threshold on http_req_duration is valid and passes.
func TestRunThresholdOnHTTPMetric(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "http.js", countingScript+`
export const options = { iterations: 2, thresholds: { http_req_duration: ['p(95)<500'], http_req_failed: ['rate<0.01'], http_reqs: ['count>=0'] } };`)
	r := dnecho(t, runLimit, "run", "-q", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "http_req_duration", "p(95)<500")
}

// TestRunCompatibilityMode: extended (the default) has the `global` alias, base does not; other
// values are refused.
func TestRunCompatibilityMode(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "compat.js", `
export const options = { iterations: 1 };
export default function () { console.log('global is ' + typeof global); }`)
	for mode, want := range map[string]string{"": "global is object", "extended": "global is object", "base": "global is undefined"} {
		args := []string{"run", "-q"}
		if mode != "" {
			args = append(args, "--compatibility-mode", mode)
		}
		r := dnecho(t, runLimit, append(args, path)...)
		if r.code != 0 || !strings.Contains(r.all(), want) {
			t.Errorf("mode %q: exit %d, want %q\n%s", mode, r.code, want, r.all())
		}
	}
	if r := dnecho(t, runLimit, "run", "--compatibility-mode", "es5", path); r.code != 104 || !strings.Contains(r.all(), "extended, base") {
		t.Errorf("bad mode: exit %d\n%s", r.code, r.all())
	}
}
