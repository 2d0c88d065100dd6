package output

import (
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Batcher queues sample batches from any goroutine and hands them to a flush function on its own
// goroutine every period, so producers never wait for encoding or I/O.
type Batcher struct {
	period time.Duration
	flush  func(batches [][]metrics.Sample) error

	mu      sync.Mutex
	pending [][]metrics.Sample
	queued  int   // samples in pending
	limit   int   // 0: unbounded
	dropped int64 // samples refused because pending was full
	err     error // first flush error

	stop, done chan struct{}
	state      int // 0 new, 1 running, 2 stopped
}

// NewBatcher returns a batcher that calls flush every period (and once more on Stop). flush runs
// on one goroutine at a time.
func NewBatcher(period time.Duration, flush func(batches [][]metrics.Sample) error) *Batcher {
	return &Batcher{period: period, flush: flush, stop: make(chan struct{}), done: make(chan struct{})}
}

// Start launches the flush goroutine; Stop ends it. A batcher runs at most once.
func (b *Batcher) Start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != 0 {
		return
	}
	b.state = 1
	go b.loop()
}

func (b *Batcher) loop() {
	defer close(b.done)
	t := time.NewTicker(b.period)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.flushPending()
		}
	}
}

// DefaultPendingLimit is the queue bound network outputs and the dashboard use: about 60 MB of
// samples, seconds of the fastest load, so a flush goroutine starved of CPU cannot grow memory
// without end.
const DefaultPendingLimit = 1 << 20

// SetLimit bounds the samples waiting for the next flush; batches beyond it are dropped and
// counted (Dropped). Call it before Start.
func (b *Batcher) SetLimit(samples int) {
	b.mu.Lock()
	b.limit = samples
	b.mu.Unlock()
}

// Dropped is the number of samples refused because the queue was full.
func (b *Batcher) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// AddSamples queues a batch, or drops it when the queue is at its limit.
func (b *Batcher) AddSamples(batch []metrics.Sample) {
	if len(batch) == 0 {
		return
	}
	b.mu.Lock()
	if b.limit > 0 && b.queued+len(batch) > b.limit {
		b.dropped += int64(len(batch))
	} else {
		b.pending = append(b.pending, batch)
		b.queued += len(batch)
	}
	b.mu.Unlock()
}

func (b *Batcher) flushPending() {
	b.mu.Lock()
	batches := b.pending
	b.pending, b.queued = nil, 0
	b.mu.Unlock()
	if len(batches) == 0 {
		return
	}
	if err := b.flush(batches); err != nil {
		b.mu.Lock()
		if b.err == nil {
			b.err = err
		}
		b.mu.Unlock()
	}
}

// Stop ends the flush goroutine, flushes what is left and returns the first flush error.
func (b *Batcher) Stop() error {
	b.mu.Lock()
	running := b.state == 1
	b.state = 2
	b.mu.Unlock()
	if running {
		close(b.stop)
		<-b.done
	}
	b.flushPending()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}
