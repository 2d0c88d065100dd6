package main

import (
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testdeps"
)

func TestBuildVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name          string
		bi            *debug.BuildInfo
		override, rev string
		wantVer, want string
	}{
		{"tagged", stamped("v1.4.0", "vcs.revision", rev, "vcs.modified", "false"), "", "", "v1.4.0", rev[:12]},
		{"dirty", stamped("v0.0.0-20260101000000-0123456789ab+dirty", "vcs.revision", rev, "vcs.modified", "true"), "", "",
			"v0.0.0-20260101000000-0123456789ab+dirty", rev[:12] + "-dirty"},
		{"no VCS stamp", stamped("(devel)"), "", "", "(devel)", ""},
		{"-X main.version", stamped("(devel)", "vcs.revision", rev), "v9.9.9", "", "v9.9.9", rev[:12]},
		{"-X both, no VCS stamp", stamped("(devel)"), "v0.0.0-20260101000000-0123456789ab", "0123456789ab-dirty",
			"v0.0.0-20260101000000-0123456789ab", "0123456789ab-dirty"},
		{"no build info", nil, "", "", "(devel)", ""},
	} {
		ver, got := buildVersion(tc.bi, tc.override, tc.rev)
		if ver != tc.wantVer || got != tc.want {
			t.Errorf("%s: got %q %q, want %q %q", tc.name, ver, got, tc.wantVer, tc.want)
		}
	}
}

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
