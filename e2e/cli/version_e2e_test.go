package cli

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// `dnecho version` and `--version` of the binary `make build` makes report the commit it was
// built from (and a version made from it), not "(devel)", also where Go stamps nothing (a git
// worktree, GOFLAGS=-buildvcs=false).
func TestVersionReportsTheCommit(t *testing.T) {
	testdeps.RequireTool(t, "make", "apt-get install make")
	out, err := exec.Command("git", "-C", "../..", "rev-parse", "--short=12", "HEAD").Output()
	testdeps.Require(t, "a git checkout of dnecho", err, "the version comes from git")
	rev := strings.TrimSpace(string(out))
	want := regexp.MustCompile(`^dnecho v\d+\.\d+\.\d+\S* \(commit/` + rev + `(-dirty)?, go[^,]+, \w+/\w+\)\n$`)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := dnecho(t, 30*time.Second, args...)
		if r.code != 0 || !want.MatchString(r.stdout) {
			t.Errorf("%v: exit %d %q, want a version and commit/%s", args, r.code, r.stdout, rev)
		}
	}
}

// The garbage-collection policy is a help topic of its own, not part of the first screen.
func TestHelpGCTopic(t *testing.T) {
	r := dnecho(t, 30*time.Second, "--help")
	if r.code != 0 || strings.Contains(r.stdout, "GOGC") || !strings.Contains(r.stdout, "dnecho help gc") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
	for _, args := range [][]string{{"help", "gc"}, {"gc", "--help"}} {
		r := dnecho(t, 30*time.Second, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "GOGC") || !strings.Contains(r.stdout, "64 MiB") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.all())
		}
	}
}
