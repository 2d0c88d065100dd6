package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testkit"
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

// --conf (and -D, --scm) give the Clients that name no cluster their defaults, as freon's do.
func TestRunConfAndSCMFlags(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	script := writeRunScript(t, "defaults.js", `import dnecho from 'k6/x/dnecho';
export const options = { iterations: 5 };
const client = new dnecho.Client({ containerId: 2 });
export default function () { if (!client.echo().ok) throw new Error('echo failed'); }`)
	for name, args := range map[string][]string{
		"conf": {"--conf", conf, "-D", "ozone.client.read.timeout=5s"},
		"scm":  {"--scm", c.SCMAddrs()[0]},
	} {
		t.Run(name, func(t *testing.T) {
			export := filepath.Join(t.TempDir(), "summary.json")
			r := dnecho(t, 60*time.Second, append(append([]string{"run", "-q", "--summary-export", export}, args...), script)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			if n := readExport(t, export).count("dnecho_reqs"); n != 5 {
				t.Errorf("dnecho_reqs %v, want 5", n)
			}
		})
	}
	r := dnecho(t, 30*time.Second, "run", "-q", "--scm", "host:99999", script)
	if r.code != 255 { // k6's -1 for a command line it refuses
		t.Fatalf("bad --scm: exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, `invalid argument "host:99999" for "--scm" flag`)
	r = dnecho(t, 30*time.Second, "run", "-q", "--local-cluster", "--conf", conf, script)
	if r.code != 104 {
		t.Fatalf("--local-cluster with --conf: exit %d\n%s", r.code, r.all())
	}
}

// Ctrl-C while SCM does not answer: the run stops at once with k6's interrupt code (105).
func TestRunCtrlCDuringLookup(t *testing.T) {
	hung := testkit.NewSilent(t)
	script := writeRunScript(t, "silent.js", `import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1 });
export default function () { client.echo(); }`)
	r := startRun(t, "-q", "--scm", hung.Addr(), script)
	waitConnected(t, hung)
	r.signal(t, os.Interrupt)
	res := r.wait(t)
	if res.code != 105 || res.took > 5*time.Second {
		t.Fatalf("exit %d after %s, want 105 at once\n%s", res.code, res.took, res.all())
	}
}
