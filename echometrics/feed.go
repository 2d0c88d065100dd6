package echometrics

import (
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Feed turns echo results from many goroutines into sample batches for a Pusher (an output set),
// for front ends without the script engine's per-VU buffers. Calls go to one of a fixed number of
// shards by the caller's worker id, so workers rarely share a lock; a shard hands its batch over
// when it is full, and Flush (on a ticker, and at the end) hands over the rest.
type Feed struct {
	out    metrics.Pusher
	m      *Set
	fixed  *metrics.Tags
	mode   echo.Mode
	shards [feedShards]feedShard
}

const (
	feedShards = 32
	// feedBatch is how many calls a shard buffers before handing them over.
	feedBatch = 256
)

type feedShard struct {
	mu      sync.Mutex
	samples []metrics.Sample
	tags    map[tagKey]*metrics.Tags
	_       [32]byte // keep neighbouring shards' locks off one cache line
}

type tagKey struct {
	pipeline, datanode, result string
	attempts                   int
}

// NewFeed returns a feed of m's samples, tagged with fixed plus each call's pipeline, DataNode and result
// and the session's mode (one mode: the freon command sends one request).
func NewFeed(out metrics.Pusher, m *Set, fixed *metrics.Tags, mode echo.Mode) *Feed {
	f := &Feed{out: out, m: m, fixed: fixed, mode: mode}
	for i := range f.shards {
		f.shards[i].tags = map[tagKey]*metrics.Tags{}
	}
	return f
}

// Record adds one call. It is safe for concurrent use; worker picks the shard.
func (f *Feed) Record(worker uint64, now time.Time, r *echo.Result) {
	s := &f.shards[worker%feedShards]
	s.mu.Lock()
	k := tagKey{r.Pipeline, r.DataNode.UUID, r.Label, AttemptSamples(r)}
	tags, ok := s.tags[k]
	if !ok {
		if len(s.tags) >= maxTagSets {
			clear(s.tags)
		}
		tags = CallTags(f.fixed, r, f.mode)
		s.tags[k] = tags
	}
	if s.samples == nil {
		s.samples = make([]metrics.Sample, 0, feedBatch*SamplesPerCall)
	}
	n := len(s.samples)
	s.samples = s.samples[:n+SamplesPerCall]
	f.m.Fill(s.samples[n:], now, tags, nil, r)
	if a := AttemptSamples(r); a > 0 {
		// A retried call's attempts: a few more samples, beyond the batch's planned room if need be.
		s.samples = append(s.samples, make([]metrics.Sample, a)...)
		f.m.FillAttempts(s.samples[len(s.samples)-a:], now, f.fixed, nil, r, f.mode)
	}
	var full []metrics.Sample
	if len(s.samples)+SamplesPerCall > cap(s.samples) {
		full, s.samples = s.samples, nil
	}
	s.mu.Unlock()
	if full != nil {
		f.out.PushSamples(full) // the batch is handed over, never written again
	}
}

// maxTagSets bounds a shard's cache of tag sets (DataNodes × results are few).
const maxTagSets = 256

// Flush hands over every buffered call.
func (f *Feed) Flush() {
	for i := range f.shards {
		s := &f.shards[i]
		s.mu.Lock()
		batch := s.samples
		s.samples = nil
		s.mu.Unlock()
		if len(batch) > 0 {
			f.out.PushSamples(batch)
		}
	}
}
