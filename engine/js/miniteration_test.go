package js

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestMinIterationDuration runs iterations on virtual time: a quick iteration holds its VU for
// the rest of minIterationDuration, a long one is not held, and an ended context ends the hold.
// iteration_duration measures the script only.
func TestMinIterationDuration(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `import { sleep } from "k6";
export default function () { if (__ENV.SLEEP) sleep(Number(__ENV.SLEEP)); }`}, "script.js", Config{})
	e.r.Configure(RunOptions{MinIterationDuration: 7 * time.Second})
	for _, tc := range []struct {
		name   string
		sleep  string
		cancel time.Duration // 0: never
		took   time.Duration
	}{
		{"quick iteration is held", "", 0, 7 * time.Second},
		{"long iteration is not", "10", 0, 10 * time.Second},
		{"the hold ends with the context", "", 3 * time.Second, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.out.Reset()
			e.r.cfg.Env = map[string]string{"SLEEP": tc.sleep}
			synctest.Test(t, func(t *testing.T) {
				vu := e.vu(t, 1)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel > 0 {
					time.AfterFunc(tc.cancel, cancel)
				}
				start := time.Now()
				interrupted, err := outcome(vu.RunIteration(ctx, iterationZero))
				if interrupted || err != nil {
					t.Fatalf("interrupted=%v err=%v", interrupted, err)
				}
				if took := time.Since(start); took != tc.took {
					t.Errorf("the iteration held the VU %v, want %v", took, tc.took)
				}
				vu.Flush()
				vu.disarm()
			})
			d := e.out.ByName("iteration_duration")
			if len(d) != 1 || d[0].Value >= float64(tc.took/time.Millisecond) && tc.sleep == "" {
				t.Errorf("iteration_duration %v: it must not include the hold", d)
			}
		})
	}
}
