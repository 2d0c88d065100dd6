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

// AddSamples queues a batch.
func (b *Batcher) AddSamples(batch []metrics.Sample) {
	if len(batch) == 0 {
		return
	}
	b.mu.Lock()
	b.pending = append(b.pending, batch)
	b.mu.Unlock()
}

func (b *Batcher) flushPending() {
	b.mu.Lock()
	batches := b.pending
	b.pending = nil
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
