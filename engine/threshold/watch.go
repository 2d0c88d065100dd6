package threshold

import (
	"context"
	"time"
)

// DefaultInterval is how often thresholds are evaluated during the run (k6: every 2 s).
const DefaultInterval = 2 * time.Second

// Watch evaluates the set every interval until ctx ends. When an abortOnFail threshold fails past
// its delay, it calls onAbort once with a *FailedError and returns. It blocks: the caller runs it
// on a goroutine it owns and stops it by cancelling ctx. elapsed reports the test run time.
func (s *Set) Watch(ctx context.Context, src SinkSource, elapsed func() time.Duration, interval time.Duration, onAbort func(error)) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if r := s.Evaluate(src, elapsed(), false); r.Abort {
				onAbort(r.Err())
				return
			}
		}
	}
}
