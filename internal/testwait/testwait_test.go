package testwait

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is a testing.TB that records a failure instead of ending the test.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = format
	panic(r) // Fatalf does not return; unwind to the caller's recover
}

func eventually(r *recorder, timeout time.Duration, cond func() bool) {
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	Eventually(r, timeout, "cond", cond)
}

func TestEventually(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := &recorder{TB: t}
		start := time.Now()
		eventually(r, time.Second, func() bool { return n.Add(1) == 5 })
		if r.failed || n.Load() != 5 {
			t.Errorf("failed %v after %d polls", r.failed, n.Load())
		}
		if d := time.Since(start); d > 20*time.Millisecond {
			t.Errorf("4 misses took %s, want the first polls at once", d)
		}

		r = &recorder{TB: t}
		start = time.Now()
		eventually(r, time.Second, func() bool { return false })
		if !r.failed {
			t.Error("no failure for a condition that never holds")
		}
		if d := time.Since(start); d < time.Second || d > time.Second+maxPoll {
			t.Errorf("failed after %s, want %s", d, time.Second)
		}
	})
}
