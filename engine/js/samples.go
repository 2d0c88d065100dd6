package js

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// The VU's samples take one of two lanes. The full lane buffers them and pushes each batch to
// the Pusher (the collector), which aggregates them and hands them to the outputs. When the
// Pusher says no output needs individual samples (metrics.DeltaPusher.FoldSamples), the fast
// lane folds each iteration's samples into the VU's own deltas (metrics.Fold), in the VU's
// goroutine, and hands the deltas over once per flush interval: no batch travels, the
// collector's lock is taken once per interval instead of once per batch, and thresholds and the
// summary get the same figures (engine/js TestLanesAgree).

// push appends a sample to the VU's buffer. A full buffer is handed over before it would grow:
// the flush check runs between iterations, and growing a (recycled) batch mid-iteration would
// allocate a new one twice its size every time an iteration straddles the limit.
func (vu *VU) push(s metrics.Sample) {
	if len(vu.buf) == cap(vu.buf) {
		vu.handOver()
		if cap(vu.buf) == 0 {
			vu.buf = metrics.GetBatch(vu.r.flushSamples)
		}
	}
	vu.buf = append(vu.buf, s)
}

// reserve extends the VU's buffer by n samples and returns them to be filled in (see push for
// why a full buffer is handed over first).
func (vu *VU) reserve(n int) []metrics.Sample {
	if len(vu.buf)+n > cap(vu.buf) {
		vu.handOver()
		if len(vu.buf)+n > cap(vu.buf) {
			vu.buf = metrics.GetBatch(max(vu.r.flushSamples, n))
		}
	}
	l := len(vu.buf)
	vu.buf = vu.buf[:l+n]
	return vu.buf[l : l+n : l+n]
}

// folder is the Pusher as a DeltaPusher while it lets the VU fold its samples, else nil.
func (vu *VU) folder() metrics.DeltaPusher {
	if dp, ok := vu.r.cfg.Pusher.(metrics.DeltaPusher); ok && dp.FoldSamples() {
		return dp
	}
	return nil
}

// handOver empties the buffer: into the VU's fold on the fast lane (the buffer is then kept for
// the next samples), else as a batch that becomes the Pusher's.
func (vu *VU) handOver() {
	if len(vu.buf) == 0 {
		return
	}
	if vu.folder() != nil {
		vu.foldBuffer()
		return
	}
	b := vu.buf
	vu.buf = nil
	vu.r.cfg.Pusher.PushSamples(b)
}

func (vu *VU) foldBuffer() {
	for i := range vu.buf {
		vu.fold.Add(&vu.buf[i])
	}
	vu.buf = vu.buf[:0]
}

// maybeFlush hands the buffer over when it is full or old enough. On the fast lane a full buffer
// is folded as it fills (push, reserve), a batch at a time: folding a few hundred samples into a
// handful of series touches each series' state once per batch rather than once per iteration,
// which the script's own work in between would have evicted from the cache. When the interval
// has passed, or the fold holds as many series as a batch holds samples (a script that makes a
// new tag set per sample), the deltas are handed over. Batching keeps the per-sample cost of the
// pipeline low; the interval bounds how stale thresholds and live outputs can be.
func (vu *VU) maybeFlush(now time.Time) {
	if dp := vu.folder(); dp != nil {
		if now.Sub(vu.lastFlush) >= vu.r.flushInterval || vu.fold.Len() >= vu.r.flushSamples {
			vu.lastFlush = now
			vu.foldBuffer()
			vu.fold.Drain(dp)
		}
		return
	}
	if len(vu.buf) >= vu.r.flushSamples || (len(vu.buf) > 0 && now.Sub(vu.lastFlush) >= vu.r.flushInterval) {
		vu.flush(now)
	}
}

// flush hands over everything the VU holds: the buffer, and the deltas folded so far (also when
// the lane has just changed to the full one).
func (vu *VU) flush(now time.Time) {
	vu.lastFlush = now
	vu.handOver()
	if dp, ok := vu.r.cfg.Pusher.(metrics.DeltaPusher); ok && vu.fold.Len() > 0 {
		vu.fold.Drain(dp)
	}
}

// Flush pushes the VU's buffered samples now. The scheduler calls it when a VU goes idle (its
// scenario ends, the run stops), so no sample waits in an unused VU.
func (vu *VU) Flush() { vu.flush(time.Now()) }

// emitData pushes the data_sent and data_received counts of the call that just ended and resets
// them.
func (vu *VU) emitData(now time.Time) {
	vu.fillData(vu.reserve(2), now, vu.tags.Current(), vu.tags.Metadata())
}

// fillData writes the data_sent and data_received samples into s (two reserved samples) and
// resets the counts.
func (vu *VU) fillData(s []metrics.Sample, now time.Time, tags *metrics.Tags, meta map[string]string) {
	b := vu.r.test.Builtin
	s[0] = metrics.Sample{Metric: b.DataSent, Time: now, Value: float64(vu.sent), Tags: tags, Metadata: meta}
	s[1] = metrics.Sample{Metric: b.DataReceived, Time: now, Value: float64(vu.received), Tags: tags, Metadata: meta}
	vu.sent, vu.received = 0, 0
}
