package testkit

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// CheckExampleSummary checks the --summary-export of a run of one of examples/: every threshold
// holds except latency ones, which are an example's promise about an idle machine (a miss is
// logged), and the checks' rate when only latency checks failed (quickstart.js's "answered
// within 100ms" on a busy machine); the run made at least ten calls, exactly wantReqs when that
// is not 0; none failed. out is the run's output, shown with a failure.
func CheckExampleSummary(t testing.TB, path string, wantReqs float64, out string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Metrics   map[string]map[string]any `json:"metrics"`
		RootGroup exportGroup               `json:"root_group"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for metric, m := range sum.Metrics {
		th, _ := m["thresholds"].(map[string]any)
		for expr, crossed := range th {
			switch {
			case crossed != true:
			case metric == "dnecho_req_duration" || strings.HasPrefix(metric, "dnecho_req_duration{"):
				t.Logf("latency threshold %s %s missed on this machine (not a failure)", metric, expr)
			case metric == "checks" && sum.RootGroup.onlyLatencyFailed():
				t.Logf("threshold checks %s missed by latency checks on this machine (not a failure)", expr)
			default:
				t.Errorf("threshold %s %s crossed\n%s", metric, expr, out)
			}
		}
	}
	reqs, ok := sum.Metrics["dnecho_reqs"]["count"].(float64)
	if !ok || reqs < 10 || (wantReqs != 0 && reqs != wantReqs) {
		t.Errorf("dnecho_reqs %v, want at least 10 calls (exactly %v when not 0)", sum.Metrics["dnecho_reqs"], wantReqs)
	}
	if failed, _ := sum.Metrics["dnecho_req_failed"]["value"].(float64); sum.Metrics["dnecho_req_failed"] == nil || failed != 0 {
		t.Errorf("dnecho_req_failed %v\n%s", sum.Metrics["dnecho_req_failed"], out)
	}
}

// exportGroup is a group of the summary export with its checks.
type exportGroup struct {
	Checks map[string]struct {
		Fails float64 `json:"fails"`
	} `json:"checks"`
	Groups map[string]exportGroup `json:"groups"`
}

// latencyCheck matches the name of a check on a call's time ("answered within 100ms").
var latencyCheck = regexp.MustCompile(`\bwithin [0-9.]+ ?(µs|us|ms|s)\b`)

// onlyLatencyFailed says whether every failed check of g and its groups is a latency check.
func (g exportGroup) onlyLatencyFailed() bool {
	for name, c := range g.Checks {
		if c.Fails > 0 && !latencyCheck.MatchString(name) {
			return false
		}
	}
	for _, sub := range g.Groups {
		if !sub.onlyLatencyFailed() {
			return false
		}
	}
	return true
}
