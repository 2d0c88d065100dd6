package threshold

import (
	"context"
	"time"
)

// DefaultInterval is how often thresholds are evaluated during the run (k6: every 2 s).
const DefaultInterval = 2 * time.Second

// Watch evaluates the set every interval until ctx ends. When an abortOnFail threshold fails past
// its delay, it calls onAbort once with a *FailedError and returns. tick, when set, is called at
// every interval just before the evaluation, with the tick's time, so that what it pushes (a
// front end's gauge) is judged in the same period, not the next. A nil Set evaluates nothing and
// only calls tick. Watch blocks: the caller runs it on a goroutine it owns and stops it by
// cancelling ctx. elapsed reports the test run time.
func (s *Set) Watch(ctx context.Context, src SinkSource, elapsed func() time.Duration, interval time.Duration,
	tick func(time.Time), onAbort func(error)) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
		if tick != nil {
			tick(now)
		}
		if s == nil {
			continue
		}
		if r := s.Evaluate(src, elapsed(), false); r.Abort {
			onAbort(r.Err())
			return
		}
	}
}
