package modules

import (
	"strconv"
	"testing"
)

func TestRegisterRejectsBuiltinsAndDuplicates(t *testing.T) {
	f := func() Module { return nil }
	for _, name := range []string{"k6", "k6/metrics", "k6/execution", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("Register(%q) did not panic", name)
				}
			}()
			Register(name, f)
		}()
	}
	// A unique name per run, so that -count=N works with the process-wide registry.
	name := "k6/x/modules-test-" + t.Name() + "-" + strconv.Itoa(len(Registered()))
	Register(name, f)
	if _, ok := Registered()[name]; !ok {
		t.Fatal("registration not listed")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate Register did not panic")
		}
	}()
	Register(name, f)
}
