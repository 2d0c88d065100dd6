package main

import (
	"strings"
	"testing"
)

func TestHoistGlobalFlags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--quiet run s.js", "run --quiet s.js"},
		{"-q --log-output stdout run -u 2 s.js", "run -q --log-output stdout -u 2 s.js"},
		{"--log-format=json -v inspect a.tar", "inspect --log-format=json -v a.tar"},
		{"--cpuprofile p.out -q run s.js", "--cpuprofile p.out run -q s.js"},
		{"-c cfg.json archive s.js", "archive -c cfg.json s.js"},
		// Nothing to move, or a command that has no such flags: unchanged.
		{"run -q s.js", "run -q s.js"},
		{"-q freon dn-echo", "-q freon dn-echo"},
		{"--version", "--version"},
		{"-q", "-q"},
	} {
		if got := strings.Join(hoistGlobalFlags(strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
