package execinfo

import (
	"testing"
	"time"
)

type fixedState struct{ start time.Time }

func (f fixedState) StartTime() time.Time { return f.start }
func (fixedState) Progress() float64      { return 0.25 }

func TestScenarioState(t *testing.T) {
	var bare Scenario
	if !bare.StartTime().IsZero() || bare.Progress() != 0 {
		t.Errorf("a scenario without state: %v, %v", bare.StartTime(), bare.Progress())
	}
	at := time.Unix(1000, 0)
	live := Scenario{State: fixedState{at}}
	if !live.StartTime().Equal(at) || live.Progress() != 0.25 {
		t.Errorf("live scenario: %v, %v", live.StartTime(), live.Progress())
	}
}

func TestOutcomeString(t *testing.T) {
	got := ""
	for _, o := range []Outcome{Completed, Failed, Interrupted, Aborted, Outcome(9)} {
		got += o.String() + " "
	}
	if got != "completed failed interrupted aborted unknown " {
		t.Errorf("outcomes = %q", got)
	}
}
