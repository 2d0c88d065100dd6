package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realkit"
	"github.com/dnecho/dnecho/testsupport/testdeps"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// binPath is the dnecho binary built once by TestMain for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	bin, dir, err := realkit.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = bin
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// dnechoBinary returns the binary TestMain built, or skips t under -short (TestMain builds none).
func dnechoBinary(t testing.TB) string {
	t.Helper()
	testdeps.SkipShort(t, "the dnecho binary")
	return binPath
}

// runResult is what one dnecho invocation did.
type runResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r runResult) all() string { return r.stdout + r.stderr }

// dnecho runs the binary with args and a hard time limit, so a hang fails the test.
func dnecho(t *testing.T, limit time.Duration, args ...string) runResult {
	t.Helper()
	return dnechoWithLimit(t, limit, nil, "", args...)
}

func mustContain(t *testing.T, r runResult, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.all(), s) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", s, r.stdout, r.stderr)
		}
	}
}

// waitConnected waits until dnecho has reached the hung SCM.
func waitConnected(t *testing.T, hung *testkit.Silent) {
	t.Helper()
	if err := testwait.Until(runLimit, "dnecho connecting to SCM", func() bool { return hung.Connections() > 0 }); err != nil {
		t.Fatal(err)
	}
}
