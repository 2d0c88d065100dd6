package scenario_test

import (
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

func TestLength(t *testing.T) {
	const (
		arrival  = `{"executor":"constant-arrival-rate","rate":10,"duration":"10s","preAllocatedVUs":1}`
		ramp     = `{"executor":"ramping-vus","startTime":"5s","stages":[{"duration":"20s","target":2},{"duration":"10s","target":0}]}`
		counted  = `{"executor":"shared-iterations","iterations":10,"maxDuration":"1m"}`
		shortIts = `{"executor":"per-vu-iterations","iterations":1,"maxDuration":"5s"}`
	)
	tests := []struct {
		name      string
		scenarios []string
		want      time.Duration
	}{
		{"one timed scenario", []string{arrival}, 10 * time.Second},
		{"latest end, start included", []string{arrival, ramp}, 35 * time.Second},
		{"iterations only", []string{counted}, 0},
		{"iterations that may end later", []string{arrival, counted}, 0},
		{"iterations bounded within the timed ones", []string{arrival, shortIts}, 10 * time.Second},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		var cs []scenario.Config
		for i, js := range tt.scenarios {
			cs = append(cs, scenariotest.Decode(t, string(rune('a'+i)), js))
		}
		if got := scenario.Length(cs); got != tt.want {
			t.Errorf("%s: Length = %s, want %s", tt.name, got, tt.want)
		}
	}
}
