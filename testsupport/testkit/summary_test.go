package testkit

import (
	"encoding/json"
	"testing"
)

// TestOnlyLatencyFailed: a crossed checks threshold is excused only when the failed checks are
// all on a call's time.
func TestOnlyLatencyFailed(t *testing.T) {
	for _, c := range []struct {
		export string
		want   bool
	}{
		{`{"checks": {"answered within 100ms": {"fails": 3}, "echo ok": {"fails": 0}}}`, true},
		{`{"checks": {"answered within 100ms": {"fails": 3}, "echo ok": {"fails": 1}}}`, false},
		{`{"checks": {}, "groups": {"g": {"checks": {"status is 200": {"fails": 1}}}}}`, false},
		{`{"checks": {"within budget": {"fails": 1}}}`, false},
	} {
		var g exportGroup
		if err := json.Unmarshal([]byte(c.export), &g); err != nil {
			t.Fatal(err)
		}
		if got := g.onlyLatencyFailed(); got != c.want {
			t.Errorf("%s: %v, want %v", c.export, got, c.want)
		}
	}
}
