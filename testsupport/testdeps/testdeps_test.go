package testdeps

import (
	"errors"
	"flag"
	"strconv"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of ending it.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skip(...any)           { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestRequire(t *testing.T) {
	for _, c := range []struct {
		name            string
		env             string
		err             error
		skipped, failed bool
	}{
		{"available", "1", nil, false, false},
		{"missing", "", errors.New("not found"), true, false},
		{"missing, strict", "1", errors.New("not found"), false, true},
		{"missing, other value", "yes", errors.New("not found"), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(RequireEnv, c.env)
			r := &recorder{TB: t}
			Require(r, "thing", c.err, "install it")
			if r.skipped != c.skipped || r.failed != c.failed {
				t.Errorf("skipped %v failed %v, want %v %v", r.skipped, r.failed, c.skipped, c.failed)
			}
		})
	}
}

func TestRequireTool(t *testing.T) {
	t.Setenv("PATH", "/nonexistent")
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	if p := RequireTool(r, "sh", ""); p != "" || !r.skipped {
		t.Errorf("sh with an empty PATH: %q, skipped %v", p, r.skipped)
	}
}

func TestSkipShort(t *testing.T) {
	was := flag.Lookup("test.short").Value.String()
	t.Cleanup(func() { _ = flag.Set("test.short", was) })
	for _, short := range []bool{false, true} {
		if err := flag.Set("test.short", strconv.FormatBool(short)); err != nil {
			t.Fatal(err)
		}
		r := &recorder{TB: t}
		SkipShort(r, "a cluster")
		if r.skipped != short || r.failed {
			t.Errorf("-short=%v: skipped %v failed %v", short, r.skipped, r.failed)
		}
	}
}
