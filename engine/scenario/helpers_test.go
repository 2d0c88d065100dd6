package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/plan"
)

func mustDecode(t testing.TB, name, js string) Config {
	t.Helper()
	c, err := DecodeScenario(name, []byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return c
}

// tuple builds an execution tuple from its text forms.
func tuple(t testing.TB, seg, seq string) *plan.ExecutionTuple {
	t.Helper()
	et, err := plan.ParseExecutionTuple(seg, seq)
	if err != nil {
		t.Fatal(err)
	}
	return et
}

func fmtSteps[T any](steps []T) string { return fmt.Sprint(steps) }

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
