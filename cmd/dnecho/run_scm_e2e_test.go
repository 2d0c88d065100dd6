package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An SCM that does not answer fails the script's init (where the Client and its shared lookup are
// created) with a message that says so, k6's exit code for init errors, and in bounded time.
func TestRunUnreachableSCM(t *testing.T) {
	script := filepath.Join(t.TempDir(), "scm.js")
	src := `import dnecho from 'k6/x/dnecho';
export const options = { vus: 2, duration: '2s' };
const client = new dnecho.Client({ containerId: 1, scm: '127.0.0.1:1', lookupTimeout: '3s' });
export function setup() { return { at: Date.now() }; }
export default function () { client.echo(); }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, 60*time.Second, "run", "-q", script)
	if r.code != 107 {
		t.Fatalf("exit %d, want 107\n%s", r.code, r.all())
	}
	mustContain(t, r, "127.0.0.1:1", "scm.js", "still waiting for SCM")
	if r.took > 20*time.Second {
		t.Errorf("took %s to give up with lookupTimeout 3s", r.took)
	}
}

// A container SCM does not know is an init error naming the container, not a hang or a stack trace.
func TestRunUnknownContainer(t *testing.T) {
	script := filepath.Join(t.TempDir(), "unknown.js")
	src := `import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 4242 });
export default function () { client.echo(); }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, 60*time.Second, "run", "-q", "--local-cluster", script)
	if r.code != 107 {
		t.Fatalf("exit %d, want 107\n%s", r.code, r.all())
	}
	mustContain(t, r, "Container #4242 not found")
}
