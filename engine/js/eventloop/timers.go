package eventloop

import (
	"container/heap"
	"math"
	"slices"
	"time"

	"github.com/dop251/goja"
)

// timer is one setTimeout or setInterval.
type timer struct {
	id    int64
	when  time.Time
	seq   uint64 // insertion order: timers due at the same time run in the order they were set
	index int    // position in the heap, -1 when not scheduled

	fn       goja.Callable
	args     []goja.Value
	interval time.Duration
	repeat   bool
	q        *timerQueue
}

// fire runs the timer's function, rescheduling an interval first so that the function may
// clear it.
func (t *timer) fire() error {
	if t.repeat {
		t.q.schedule(t, time.Now().Add(t.interval))
	} else {
		delete(t.q.byID, t.id)
	}
	_, err := t.fn(goja.Undefined(), t.args...)
	return err
}

// timerQueue holds a VU's pending timers, earliest first. Timers run on the VU's event loop, so
// they need no lock and fire in a deterministic order (a goroutine per timer would not).
type timerQueue struct {
	h      timerHeap
	byID   map[int64]*timer
	lastID int64
	seq    uint64
}

func (q *timerQueue) init() { q.byID = map[int64]*timer{} }

func (q *timerQueue) len() int { return len(q.h) }

// add schedules fn after delay and returns the timer's id (k6 and browsers: a positive number).
func (q *timerQueue) add(fn goja.Callable, delay time.Duration, repeat bool, args []goja.Value) int64 {
	q.lastID++
	t := &timer{id: q.lastID, fn: fn, args: args, interval: delay, repeat: repeat, q: q, index: -1}
	q.byID[t.id] = t
	q.schedule(t, time.Now().Add(delay))
	return t.id
}

func (q *timerQueue) schedule(t *timer, when time.Time) {
	q.seq++
	t.when, t.seq = when, q.seq
	heap.Push(&q.h, t)
}

// cancel removes a timer; unknown ids are ignored, as clearTimeout ignores them.
func (q *timerQueue) cancel(id int64) {
	t, ok := q.byID[id]
	if !ok {
		return
	}
	delete(q.byID, id)
	if t.index >= 0 {
		heap.Remove(&q.h, t.index)
	}
	t.repeat = false
}

// next returns when the earliest timer is due.
func (q *timerQueue) next() (time.Time, bool) {
	if len(q.h) == 0 {
		return time.Time{}, false
	}
	return q.h[0].when, true
}

// due removes and returns the earliest timer if it is due at now.
func (q *timerQueue) due(now time.Time) *timer {
	if len(q.h) == 0 || q.h[0].when.After(now) {
		return nil
	}
	return heap.Pop(&q.h).(*timer)
}

// each calls f for every pending timer, by id, with the name of the function that set it.
func (q *timerQueue) each(f func(kind string, id int64)) {
	ids := make([]int64, 0, len(q.byID))
	for id := range q.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		kind := "setTimeout"
		if q.byID[id].repeat {
			kind = "setInterval"
		}
		f(kind, id)
	}
}

// clear drops every timer.
func (q *timerQueue) clear() {
	if len(q.byID) == 0 && len(q.h) == 0 {
		return
	}
	q.h = q.h[:0]
	clear(q.byID)
}

// timerHeap implements heap.Interface ordered by (when, seq).
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].when.Equal(h[j].when) {
		return h[i].when.Before(h[j].when)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// TimerFunctions returns setTimeout, clearTimeout, setInterval and clearInterval on this loop:
// the globals and the exports of k6/timers (grafana/k6 internal/js/modules/k6/timers). Delays are
// in milliseconds; a missing, negative or non-numeric delay means 0. Extra arguments are passed
// to the callback.
func (l *Loop) TimerFunctions() map[string]any {
	set := func(repeat bool) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			fn, ok := goja.AssertFunction(call.Argument(0))
			if !ok {
				panic(l.rt.NewTypeError("the callback of setTimeout and setInterval must be a function"))
			}
			var args []goja.Value
			if len(call.Arguments) > 2 {
				args = append(args, call.Arguments[2:]...)
			}
			id := l.timers.add(fn, timerDelay(call.Argument(1)), repeat, args)
			return l.rt.ToValue(id)
		}
	}
	clearFn := func(call goja.FunctionCall) goja.Value {
		l.timers.cancel(call.Argument(0).ToInteger())
		return goja.Undefined()
	}
	return map[string]any{
		"setTimeout": set(false), "setInterval": set(true),
		"clearTimeout": clearFn, "clearInterval": clearFn,
	}
}

// timerDelay converts a JS delay in milliseconds.
func timerDelay(v goja.Value) time.Duration {
	ms := v.ToFloat()
	if math.IsNaN(ms) || ms <= 0 {
		return 0
	}
	// Longer delays are capped at 2^31-1 ms (about 24.8 days), the largest that browsers keep.
	return time.Duration(min(ms, math.MaxInt32) * float64(time.Millisecond))
}
