package eventloop

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestLoopCallbacksFromManyGoroutines reserves callbacks in chains: each callback, run on the
// loop, reserves the next one and completes it from a new goroutine, while the other chains do
// the same concurrently. Every callback must run once, and run returns only after the last.
func TestLoopCallbacksFromManyGoroutines(t *testing.T) {
	const chains, length = 16, 200
	l := newTestLoop()
	var wg sync.WaitGroup
	ran := 0 // only the loop's goroutine touches it
	var link func(left int) func() error
	start := func(left int) {
		enqueue := l.Reserve()
		wg.Go(func() { enqueue(link(left)) })
	}
	link = func(left int) func() error {
		return func() error {
			ran++
			if left > 1 {
				start(left - 1)
			}
			return nil
		}
	}
	err := l.Run(context.Background(), func() error {
		for range chains {
			start(length)
		}
		return nil
	})
	wg.Wait()
	if err != nil || ran != chains*length {
		t.Fatalf("run: %v; %d callbacks ran, want %d", err, ran, chains*length)
	}
}

// TestLoopFailureDropsLateCallbacks: after a callback fails, run waits for the callbacks still
// reserved and drops them, so none runs in the next call.
func TestLoopFailureDropsLateCallbacks(t *testing.T) {
	l := newTestLoop()
	boom := errors.New("boom")
	release := make(chan struct{})
	var wg sync.WaitGroup
	lateRan := false
	err := l.Run(context.Background(), func() error {
		late := l.Reserve()
		wg.Go(func() {
			<-release
			late(func() error { lateRan = true; return nil })
		})
		fail := l.Reserve()
		wg.Go(func() {
			fail(func() error { close(release); return boom })
		})
		return nil
	})
	wg.Wait()
	if !errors.Is(err, boom) {
		t.Fatalf("run: %v, want boom", err)
	}
	if err := l.Run(context.Background(), func() error { return nil }); err != nil || lateRan {
		t.Fatalf("next run: %v, late callback ran: %v", err, lateRan)
	}
}

// TestLoopStopsWaitingWhenTheContextEnds: a reserved callback that never comes does not hold a
// call whose context has ended.
func TestLoopStopsWaitingWhenTheContextEnds(t *testing.T) {
	l := newTestLoop()
	ctx, cancel := context.WithCancel(context.Background())
	var enqueue func(func() error)
	done := make(chan error, 1)
	go func() {
		done <- l.Run(ctx, func() error {
			enqueue = l.Reserve()
			cancel()
			return nil
		})
	}()
	// run stops waiting, then waits for enqueue to be given back, and drops the callback.
	<-ctx.Done()
	enqueue(func() error { t.Error("a callback of an interrupted call ran"); return nil })
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("run: %v, want ErrInterrupted", err)
	}
}

// TestLoopCallbacksQueuedByCallbacks: callbacks that queue more callbacks while the loop runs a
// batch, after an idle pass, all run once and in order (the loop swaps queue arrays under them).
func TestLoopCallbacksQueuedByCallbacks(t *testing.T) {
	l := newTestLoop()
	var ran []string
	var queue func(name string, then ...string)
	queue = func(name string, then ...string) {
		l.Reserve()(func() error {
			ran = append(ran, name)
			if len(then) > 0 {
				queue(then[0])
				queue(then[1], then[2:]...)
			}
			return nil
		})
	}
	var wg sync.WaitGroup
	err := l.Run(context.Background(), func() error {
		for _, n := range []string{"A1", "A2", "A3", "A4"} {
			queue(n)
		}
		// Comes after an idle pass: the loop waits for it.
		enqueue := l.Reserve()
		wg.Go(func() {
			enqueue(func() error {
				ran = append(ran, "B")
				queue("C", "E", "F")
				queue("D")
				return nil
			})
		})
		return nil
	})
	wg.Wait()
	if got := strings.Join(ran, " "); err != nil || got != "A1 A2 A3 A4 B C D E F" {
		t.Fatalf("run: %v; callbacks ran %s", err, got)
	}
}
