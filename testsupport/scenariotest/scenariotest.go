// Package scenariotest builds the engine's scenario values from their text forms for the tests
// of the executors and of the scenarios, failing the test on bad input.
package scenariotest

import (
	"testing"

	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
)

// Decode decodes the k6 JSON form js of the scenario name.
func Decode(t testing.TB, name, js string) scenario.Config {
	t.Helper()
	c, err := scenario.DecodeScenario(name, []byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return c
}

// Tuple builds an execution tuple from its text forms (segment and sequence).
func Tuple(t testing.TB, seg, seq string) *plan.ExecutionTuple {
	t.Helper()
	et, err := plan.ParseExecutionTuple(seg, seq)
	if err != nil {
		t.Fatal(err)
	}
	return et
}
