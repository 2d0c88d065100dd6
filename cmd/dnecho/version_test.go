package main

import (
	"runtime/debug"
	"testing"
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
