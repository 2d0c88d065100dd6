package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunInterruptGraceful: one SIGINT stops the test gracefully; teardown and the summary still
// run, and the exit code is 105.
func TestRunInterruptGraceful(t *testing.T) {
	t.Parallel()
	export := filepath.Join(t.TempDir(), "s.json")
	path := writeRunScript(t, "long.js", `
import { sleep } from 'k6';
export default function () { console.log('ITERATING'); sleep(0.2); }
export function teardown() { console.log('TEARDOWN RAN'); }`)
	r := startRun(t, "-u", "2", "-d", "1m", "--summary-export", export, path)
	r.waitFor(t, "ITERATING")
	r.signal(t, os.Interrupt)
	res := r.wait(t)
	if res.code != 105 {
		t.Fatalf("exit %d, want 105\n%s", res.code, res.all())
	}
	if res.took > 10*time.Second {
		t.Errorf("took %s to stop", res.took)
	}
	mustContain(t, res, "stopping gracefully", "TEARDOWN RAN", "TOTAL RESULTS", "stopped from outside")
	if readExport(t, export).count("iterations") < 1 {
		t.Errorf("no iterations in the export")
	}
	// Iterations finished within gracefulStop: none was interrupted.
	if !strings.Contains(res.stdout, "interrupted iterations") || strings.Contains(res.stdout, "complete and 1 interrupted") {
		t.Errorf("progress:\n%s", res.stdout)
	}
}

// TestRunInterruptTwice: a second SIGINT stops the test at once, even inside a long iteration.
func TestRunInterruptTwice(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "stuck.js", `
import { sleep } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1m', gracefulStop: '1m' } } };
export default function () { console.log('ITERATING'); sleep(60); }
export function teardown() { console.log('TEARDOWN RAN'); }`)
	r := startRun(t, path)
	r.waitFor(t, "ITERATING")
	r.signal(t, os.Interrupt)
	r.waitFor(t, "stopping gracefully") // printed once the first signal is counted
	r.signal(t, syscall.SIGTERM)
	res := r.wait(t)
	if res.code != 105 || res.took > 10*time.Second {
		t.Fatalf("exit %d after %s, want 105 at once\n%s", res.code, res.took, res.all())
	}
	mustContain(t, res, "TOTAL RESULTS")
	if strings.Contains(res.all(), "TEARDOWN RAN") {
		t.Errorf("teardown ran after a hard stop")
	}
}

// TestRunInterruptDuringSetup: SIGINT interrupts setup; no iteration or teardown runs.
func TestRunInterruptDuringSetup(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "setup.js", `
import { sleep } from 'k6';
export function setup() { console.log('IN SETUP'); sleep(60); }
export default function () { console.log('ITERATING'); }
export function teardown() { console.log('TEARDOWN RAN'); }`)
	r := startRun(t, "-q", path)
	r.waitFor(t, "IN SETUP")
	r.signal(t, os.Interrupt)
	res := r.wait(t)
	if res.code != 105 || res.took > 10*time.Second {
		t.Fatalf("exit %d after %s, want 105 at once\n%s", res.code, res.took, res.all())
	}
	for _, s := range []string{"ITERATING", "TEARDOWN RAN"} {
		if strings.Contains(res.all(), s) {
			t.Errorf("%q after an interrupted setup:\n%s", s, res.all())
		}
	}
}
