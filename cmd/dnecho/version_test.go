package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
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
		override      string
		wantVer, want string
	}{
		{"tagged", stamped("v1.4.0", "vcs.revision", rev, "vcs.modified", "false"), "", "v1.4.0", rev[:12]},
		{"dirty", stamped("v0.0.0-20260101000000-0123456789ab+dirty", "vcs.revision", rev, "vcs.modified", "true"), "",
			"v0.0.0-20260101000000-0123456789ab+dirty", rev[:12] + "-dirty"},
		{"no VCS stamp", stamped("(devel)"), "", "(devel)", ""},
		{"-X main.version", stamped("(devel)", "vcs.revision", rev), "v9.9.9", "v9.9.9", rev[:12]},
		{"no build info", nil, "", "(devel)", ""},
	} {
		ver, got := buildVersion(tc.bi, tc.override)
		if ver != tc.wantVer || got != tc.want {
			t.Errorf("%s: got %q %q, want %q %q", tc.name, ver, got, tc.wantVer, tc.want)
		}
	}
}

// `dnecho version` and `--version` report the module version and VCS revision Go stamped into the
// binary (as `go version -m` reads them), not a fixed word.
func TestVersionReportsBuildInfo(t *testing.T) {
	out, err := exec.Command("go", "version", "-m", binPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	var modVer, rev string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			modVer = f[2]
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if rev == "" {
		t.Skip("the test binary has no VCS stamp (not built from a git checkout)")
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := dnecho(t, 30*time.Second, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "dnecho "+modVer+" (commit/"+rev[:12]) {
			t.Errorf("%v: exit %d %q, want the module version %s and commit %s", args, r.code, r.stdout, modVer, rev[:12])
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
