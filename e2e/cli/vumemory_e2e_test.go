package cli

import (
	"strings"
	"testing"
	"time"
)

// TestVUsBeyondMemoryFailFast: a run asking for more VUs than the memory holds is refused before
// any VU is initialised, at once and in little memory, with exit code 104 and a line that says
// how many fit and how to start anyway (not a process that grows by hundreds of MB/s while it
// initialises a million VUs).
// GOMEMLIMIT fixes the budget whatever the machine has: 1 GiB holds 5857 VUs at 179 KiB each.
func TestVUsBeyondMemoryFailFast(t *testing.T) {
	t.Parallel()
	empty := writeRunScript(t, "empty.js", "export default function () {}\n")
	arrival := writeRunScript(t, "arrival.js", `export const options = { scenarios: {
  small: { executor: 'constant-vus', vus: 2, duration: '10s' },
  burst: { executor: 'ramping-arrival-rate', preAllocatedVUs: 1, maxVUs: 10000000, timeUnit: '1s',
           stages: [{ target: 1000, duration: '10s' }] },
} };
export default function () {}
`)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"--vus", []string{"run", "-q", "-u", "1000000", "-d", "10s", empty},
			[]string{`scenario "default": 1000000 VUs`, "1000000 VUs need ~171 GiB", "~1.0 GiB is available (GOMEMLIMIT)", "at most ~5857 VUs fit",
				"--vu-memory-check=false", "DNECHO_VU_MEMORY_CHECK=false"}},
		{"maxVUs", []string{"run", "-q", arrival},
			[]string{`scenario "burst": 10000000 VUs, scenario "small": 2 VUs`, "10000002 VUs need", "at most ~5857 VUs fit"}},
		{"this instance's segment", []string{"run", "-q", "-u", "1000000", "-d", "10s",
			"--execution-segment", "0:1/2", "--execution-segment-sequence", "0,1/2,1", empty},
			[]string{`scenario "default": 500000 VUs`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dnechoBounded(t, []string{"GOMEMLIMIT=1GiB"}, tc.args...)
			if r.code != 104 || r.took > 5*time.Second {
				t.Fatalf("exit %d after %s; want 104 at once, within the 8 GiB address-space limit\n%s", r.code, r.took, r.all())
			}
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 {
				t.Errorf("want one line, got %d:\n%s", len(lines), r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestVUMemoryCheckOverride: --vu-memory-check=false and DNECHO_VU_MEMORY_CHECK=false start a run
// the check refuses (300 VUs need ~52 MiB under a 40 MiB GOMEMLIMIT), and a share that fits runs
// without either.
func TestVUMemoryCheckOverride(t *testing.T) {
	t.Parallel()
	empty := writeRunScript(t, "empty.js", "export default function () {}\n")
	limit := []string{"GOMEMLIMIT=40MiB"}
	run := []string{"run", "-q", "--summary-mode", "disabled", "-u", "300", "-i", "300"}
	if r := dnechoEnvLimit(t, time.Minute, limit, append(run, empty)...); r.code != 104 || !strings.Contains(r.stderr, "at most ~228 VUs fit") {
		t.Fatalf("without the override: exit %d, want 104 with how many fit\n%s", r.code, r.all())
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", limit, append(run, "--vu-memory-check=false", empty)},
		{"environment", append(limit, "DNECHO_VU_MEMORY_CHECK=false"), append(run, empty)},
		{"a share that fits", limit, append(run, "--execution-segment", "0:1/10", "--execution-segment-sequence", "0,1/10,1", empty)},
	} {
		if r := dnechoEnvLimit(t, time.Minute, tc.env, tc.args...); r.code != 0 {
			t.Errorf("%s: exit %d, want the run to start and pass\n%s", tc.name, r.code, r.all())
		}
	}
	if r := dnechoEnvLimit(t, time.Minute, []string{"DNECHO_VU_MEMORY_CHECK=maybe"}, append(run, empty)...); r.code != 104 || !strings.Contains(r.stderr, "DNECHO_VU_MEMORY_CHECK") {
		t.Errorf("a bad DNECHO_VU_MEMORY_CHECK: exit %d, want 104 naming it\n%s", r.code, r.all())
	}
}

// dnechoBounded runs the binary with extra environment, a short time limit (a run that starts
// allocating VUs is still running then) and an 8 GiB address-space limit (one that allocates them
// dies of it). Peak RSS from rusage would not do: a child's peak starts at its parent's size, the
// test binary's, hundreds of MiB under -race.
func dnechoBounded(t *testing.T, env []string, args ...string) runResult {
	t.Helper()
	return dnechoBehind(t, []string{"sh", "-c", `ulimit -v 8388608 && exec "$@"`, "sh"}, 8*time.Second, env, "", args...)
}
