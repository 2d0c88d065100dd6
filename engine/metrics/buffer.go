package metrics

import (
	"sync"
	"time"
)

// Buffer defaults: a batch of 256 samples amortises the collector's lock to well under one
// acquisition per hundred samples, and 100 ms keeps thresholds and outputs current for a VU that
// produces samples slowly.
const (
	DefaultBufferSize   = 256
	DefaultBufferMaxAge = 100 * time.Millisecond
)

// Buffer collects the samples of one producer (a VU) and pushes them in batches, so that a
// thousand VUs do not contend on the collector for every sample. It is safe for concurrent use,
// because a VU's asynchronous callbacks may add samples from other goroutines; the lock is the
// buffer's own and uncontended in the common case. The owner calls Flush at the end of each
// iteration and when the VU stops.
type Buffer struct {
	mu     sync.Mutex
	to     Pusher
	size   int
	maxAge time.Duration
	buf    []Sample
}

// NewBuffer returns a buffer that pushes to p when it holds size samples, or when a sample is
// maxAge newer than the oldest buffered one (by sample time, so no clock is read). size <= 0 means
// DefaultBufferSize; maxAge <= 0 disables the age rule.
func NewBuffer(p Pusher, size int, maxAge time.Duration) *Buffer {
	if size <= 0 {
		size = DefaultBufferSize
	}
	return &Buffer{to: p, size: size, maxAge: maxAge}
}

// Add buffers s, pushing the batch when it is full or old enough.
func (b *Buffer) Add(s Sample) {
	b.mu.Lock()
	if b.buf == nil {
		b.buf = GetBatch(b.size)
	}
	b.buf = append(b.buf, s)
	full := len(b.buf) >= b.size || (b.maxAge > 0 && s.Time.Sub(b.buf[0].Time) >= b.maxAge)
	var batch []Sample
	if full {
		batch, b.buf = b.buf, nil
	}
	b.mu.Unlock()
	if batch != nil {
		b.to.PushSamples(batch)
	}
}

// Flush pushes whatever is buffered.
func (b *Buffer) Flush() {
	b.mu.Lock()
	batch := b.buf
	b.buf = nil
	b.mu.Unlock()
	if len(batch) > 0 {
		b.to.PushSamples(batch)
	}
}

// Len is the number of buffered samples.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buf)
}
