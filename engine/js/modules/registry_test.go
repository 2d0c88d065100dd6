package modules

import (
	"slices"
	"testing"
)

func TestNamesAndBuiltins(t *testing.T) {
	f := func() Module { return nil }
	got := Names(map[string]Factory{"k6/x/b": f, "k6": f, "k6/x/a": f})
	if want := []string{"k6", "k6/x/a", "k6/x/b"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	for name, want := range map[string]bool{"k6": true, "k6/metrics": true, "k6/execution": true, "k6/x/dnecho": false, "": false} {
		if IsBuiltin(name) != want {
			t.Errorf("IsBuiltin(%q) = %v", name, !want)
		}
	}
}
