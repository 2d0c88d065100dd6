package testwait

import (
	"fmt"
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
func (r *recorder) Fatal(args ...any) {
	r.failed = true
	r.msg = fmt.Sprint(args...)
	panic(r) // Fatal does not return; unwind to the caller's recover
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
		if !r.failed || r.msg != "cond: not reached within 1s" {
			t.Errorf("failed %v with %q for a condition that never holds", r.failed, r.msg)
		}
		if d := time.Since(start); d < time.Second || d > time.Second+maxPoll {
			t.Errorf("failed after %s, want %s", d, time.Second)
		}
	})
}

func TestUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		if err := Until(time.Second, "cond", func() bool { return n.Add(1) == 3 }); err != nil || n.Load() != 3 {
			t.Errorf("%v after %d polls", err, n.Load())
		}
		start := time.Now()
		err := Until(time.Second, "3 successes", func() bool { return false })
		if err == nil || err.Error() != "3 successes: not reached within 1s" {
			t.Errorf("error %v for a condition that never holds", err)
		}
		if d := time.Since(start); d < time.Second || d > time.Second+maxPoll {
			t.Errorf("gave up after %s, want %s", d, time.Second)
		}
	})
}
