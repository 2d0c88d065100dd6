package threshold

import (
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

// TestUnknownMetricHint: a threshold on an unknown metric keeps k6's words and names the
// registered metric it most likely meant: a typo's nearest name, else the names of its namespace
// that share a word with it (latency reads as duration); nothing when none is close or too many
// are.
func TestUnknownMetricHint(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.RegisterBuiltins(reg)
	for _, m := range []struct {
		name string
		typ  metrics.MetricType
	}{
		{"extmod_req_duration", metrics.Trend}, {"extmod_reqs", metrics.Counter}, {"extmod_req_failed", metrics.Rate},
		{"extmod_data_sent", metrics.Counter}, {"extmod_tcp_rtt", metrics.Trend}, {"extmod_iteration_start_delay", metrics.Trend},
		{"extmod_attempt_duration", metrics.Trend},
	} {
		reg.MustNewMetric(m.name, m.typ, metrics.Default)
	}
	for _, tc := range []struct{ metric, hint string }{
		{"extmod_echo_latency", `did you mean "extmod_req_duration"?`},
		{"extmod_latency", `did you mean "extmod_req_duration"?`},
		{"extmod_req_duraton", `did you mean "extmod_req_duration"?`},
		{"Extmod_Req_Duration", `did you mean "extmod_req_duration"?`},
		{"extmod_errors", `did you mean "extmod_req_failed"?`},
		{"extmod_requests", `did you mean "extmod_reqs"?`},
		{"extmod_rtt", `did you mean "extmod_tcp_rtt"?`},
		{"iteration", `did you mean "iterations"?`},
		{"http_req_duraiton", `did you mean "http_req_duration"?`},
		{"vus_maxx", `did you mean "vus_max"?`},
		{"latency", ""},              // every *_duration shares the word: no guess
		{"extmod_payload_bytes", ""}, // nothing shared in its namespace
		{"unrelated_thing_entirely", ""},
	} {
		cfg, err := DecodeConfig([]byte(`{"` + tc.metric + `":["p(99)<1"]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = New(cfg, reg)
		want := `invalid threshold defined on ` + tc.metric + `; reason: no metric name "` + tc.metric + `" found`
		if tc.hint != "" {
			want += "; " + tc.hint
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", tc.metric, err, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"iteration", "iterations", 1},
		{"dnecho_req_duraton", "dnecho_req_duration", 1}, {"abc", "abc", 0}, {"ab", "ba", 2},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want || editDistance(tc.b, tc.a) != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d both ways", tc.a, tc.b, got, tc.want)
		}
	}
	if strings.Contains(unknownMetric("zz", metrics.NewRegistry()), "did you mean") {
		t.Error("an empty registry suggested something")
	}
}
