// Package eventloop is a VU's event loop: the macrotask queue that lets a lifecycle call (an
// iteration, the init context, setup, teardown, handleSummary) last until the async work it
// started has settled, and the timers (setTimeout and its kin) that run on it. It knows goja but
// nothing of VUs, modules or scripts: the caller says what an unhandled promise rejection becomes
// and where warnings go.
package eventloop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// ErrInterrupted is what Run returns when its context ended before the call settled. The VU also
// interrupts its runtime with it, so that both read the same.
var ErrInterrupted = errors.New("iteration interrupted")

// Loop is a VU's event loop. A lifecycle call (the init context, an iteration, setup, teardown,
// handleSummary) runs as its first task; the call then lasts until everything it queued has
// settled: callbacks that Go code reserved (an async RPC), timers, and the promise reactions
// those run. This is k6's rule that an iteration ends only when its work is done (grafana/k6
// internal/js/eventloop/eventloop.go; docs/k6-compat.md#async-code-and-the-event-loop).
//
// goja runs promise reactions (microtasks) itself, when a call from Go into the runtime
// returns; the loop adds the macrotasks: reserved callbacks, queued from any goroutine, and
// timers. After each task it checks for a promise rejected with no handler and ends the call
// with that rejection, as an uncaught exception.
//
// Only the VU's goroutine runs the loop and touches the runtime; enqueue functions returned by
// Reserve may be called from any goroutine.
type Loop struct {
	rt *goja.Runtime

	mu       sync.Mutex
	queue    []func() error
	spare    []func() error // an emptied queue array for the next swap, or nil
	reserved int            // Reserve calls whose enqueue has not been called yet
	wake     chan struct{}  // capacity 1: "queue or reserved changed"
	// pending is len(queue) + reserved, readable without the lock: a synchronous iteration,
	// which queues nothing, then ends after one atomic load.
	pending atomic.Int64

	// rejected lists the promises rejected with no handler since the last task, in order.
	rejected []*goja.Promise

	timers timerQueue
	clock  *time.Timer // wakes a waiting loop for the earliest timer; nil until needed
	// rejection turns a promise rejected with no handler into the error that ends the call.
	rejection func(goja.Value) error
	// warn, when set, receives k6's warning for each timer an interrupted call drops.
	warn func(msg string)
}

// New makes the event loop of the runtime rt and installs its promise rejection tracker.
// rejection turns the result of a promise rejected with no handler into the error that fails the
// call (k6: "Uncaught (in promise) ..."); warn, which may be nil, receives warnings.
func New(rt *goja.Runtime, rejection func(goja.Value) error, warn func(msg string)) *Loop {
	l := &Loop{rt: rt, wake: make(chan struct{}, 1), rejection: rejection, warn: warn}
	l.timers.init()
	rt.SetPromiseRejectionTracker(l.track)
	return l
}

// track is goja's promise rejection tracker (the host hook of ECMAScript's
// HostPromiseRejectionTracker): a promise rejected with no handler is remembered until a
// handler is attached.
func (l *Loop) track(p *goja.Promise, op goja.PromiseRejectionOperation) {
	if op == goja.PromiseRejectionReject {
		l.rejected = append(l.rejected, p)
		return
	}
	for i, q := range l.rejected {
		if q == p {
			l.rejected = append(l.rejected[:i], l.rejected[i+1:]...)
			return
		}
	}
}

// Reserve promises the loop a callback: the current call will not end before the returned
// enqueue function has been called, exactly once, from any goroutine. enqueue hands the
// callback to the VU's goroutine, which runs it as a task (unless the call has already ended
// abnormally, in which case the callback is dropped). Reserve must be called from the VU's
// goroutine. Modules reach it through modules.VU's RegisterCallback.
func (l *Loop) Reserve() (enqueue func(func() error)) {
	l.mu.Lock()
	l.reserved++
	l.pending.Add(1)
	l.mu.Unlock()
	var once sync.Once
	return func(f func() error) {
		once.Do(func() {
			l.mu.Lock()
			l.queue = append(l.queue, f)
			l.reserved--
			l.mu.Unlock()
			select {
			case l.wake <- struct{}{}:
			default:
			}
		})
	}
}

// Run runs first and then every task it leads to, until nothing is queued, reserved or timed,
// a task fails, or ctx ends (ErrInterrupted). An unhandled rejection fails the task it happened
// in with the error New's rejection makes of it. When Run fails, the timers are dropped
// and it waits for the reserved callbacks, discarding them, so that nothing of this call runs
// in the next one.
func (l *Loop) Run(ctx context.Context, first func() error) error {
	l.rejected = l.rejected[:0]
	err := l.task(first)
	if err == nil && l.pending.Load() == 0 && l.timers.len() == 0 {
		return nil // the common, synchronous case
	}
	for err == nil {
		var more bool
		if more, err = l.step(ctx); err != nil || more {
			continue
		}
		if !l.busy() {
			return nil
		}
		err = l.wait(ctx)
	}
	if ctx.Err() != nil && l.warn != nil {
		l.timers.each(func(kind string, id int64) {
			// k6's warning (grafana/k6 internal/js/modules/k6/timers).
			l.warn(fmt.Sprintf("%s %d was stopped because the VU iteration was interrupted", kind, id))
		})
	}
	l.abandon()
	return err
}

// task runs one macrotask and reports an unhandled rejection it left behind.
func (l *Loop) task(f func() error) error {
	if err := f(); err != nil {
		return err
	}
	if len(l.rejected) == 0 {
		return nil
	}
	p := l.rejected[0]
	l.rejected = l.rejected[:0]
	return l.rejection(p.Result())
}

// step runs the queued callbacks and the timers that are due. more reports that it ran
// something, which may have queued more. Nothing runs once ctx has ended.
func (l *Loop) step(ctx context.Context) (more bool, err error) {
	l.mu.Lock()
	queue := l.queue
	if len(queue) > 0 {
		// Swap in the spare array; the two never share one, since enqueue appends concurrently.
		l.queue, l.spare = l.spare, nil
		l.pending.Add(-int64(len(queue)))
	}
	l.mu.Unlock()
	if len(queue) > 0 && ctx.Err() != nil {
		return true, ErrInterrupted
	}
	for i, f := range queue {
		queue[i] = nil
		if err := l.task(f); err != nil {
			return true, err
		}
	}
	if len(queue) > 0 {
		l.mu.Lock()
		l.spare = queue[:0]
		l.mu.Unlock()
		more = true
	}
	if l.timers.len() == 0 {
		return more, nil
	}
	now := time.Now()
	for t := l.timers.due(now); t != nil; t = l.timers.due(now) {
		if ctx.Err() != nil {
			return true, ErrInterrupted
		}
		more = true
		if err := l.task(t.fire); err != nil {
			return true, err
		}
	}
	return more, nil
}

// busy reports whether the call still has work coming: queued or reserved callbacks, or timers.
func (l *Loop) busy() bool {
	return l.timers.len() > 0 || l.pending.Load() > 0
}

// wait blocks until a callback is queued, the earliest timer is due, or ctx ends.
func (l *Loop) wait(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	var due <-chan time.Time
	if next, ok := l.timers.next(); ok {
		d := time.Until(next)
		if d <= 0 {
			return nil
		}
		if l.clock == nil {
			l.clock = time.NewTimer(d)
		} else {
			l.clock.Reset(d)
		}
		defer l.clock.Stop()
		due = l.clock.C
	}
	select {
	case <-l.wake:
	case <-due:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		// Checked even when a callback arrived too: select picks at random among ready cases.
		return ErrInterrupted
	}
	return nil
}

// abandon ends a call that failed: timers are dropped, reserved callbacks are waited for and
// discarded, and pending rejections forgotten.
func (l *Loop) abandon() {
	l.timers.clear()
	l.rejected = l.rejected[:0]
	for {
		l.mu.Lock()
		l.pending.Add(-int64(len(l.queue)))
		clear(l.queue)
		l.queue = l.queue[:0]
		waiting := l.reserved > 0
		l.mu.Unlock()
		if !waiting {
			return
		}
		<-l.wake
	}
}
