package cli

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// TestLingerTeardownAfterTheRun: while a run lingers, POST /v1/teardown runs teardown again
// (200), as k6 does, instead of answering 500 because the test is over.
func TestLingerTeardownAfterTheRun(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	script := writeRunScript(t, "test.js", `
export const options = { iterations: 1 };
export default function () {}
export function teardown() { console.log('TEARDOWN RAN'); }`)
	run := startRun(t, "--address", addr, "--linger", script)
	run.waitFor(t, "--linger was enabled")
	resp, err := http.Post("http://"+addr+"/v1/teardown", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("POST /v1/teardown after the run: %s, want 200", resp.Status)
	}
	run.signal(t, syscall.SIGINT)
	res := run.wait(t)
	if n := strings.Count(res.all(), "TEARDOWN RAN"); res.code != 0 || n != 2 {
		t.Errorf("exit %d, teardown ran %d times, want 0 and twice\n%s", res.code, n, res.all())
	}
}
