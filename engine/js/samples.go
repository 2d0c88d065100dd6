package js

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// push appends a sample to the VU's buffer. A full buffer is handed over before it would grow:
// the flush check runs between iterations, and growing a (recycled) batch mid-iteration would
// allocate a new one twice its size every time an iteration straddles the limit.
func (vu *VU) push(s metrics.Sample) {
	if len(vu.buf) == cap(vu.buf) {
		if vu.buf != nil {
			b := vu.buf
			vu.buf = nil
			vu.r.cfg.Pusher.PushSamples(b)
		}
		vu.buf = metrics.GetBatch(vu.r.flushSamples)
	}
	vu.buf = append(vu.buf, s)
}

// reserve extends the VU's buffer by n samples and returns them to be filled in (see push for
// why a full buffer is handed over first).
func (vu *VU) reserve(n int) []metrics.Sample {
	if len(vu.buf)+n > cap(vu.buf) {
		if len(vu.buf) > 0 {
			b := vu.buf
			vu.buf = nil
			vu.r.cfg.Pusher.PushSamples(b)
		}
		vu.buf = metrics.GetBatch(max(vu.r.flushSamples, n))
	}
	l := len(vu.buf)
	vu.buf = vu.buf[:l+n]
	return vu.buf[l : l+n : l+n]
}

// maybeFlush hands the buffer to the Pusher when it is full or old enough. Batching keeps the
// per-sample cost of the pipeline low; the interval bounds how stale live outputs can be.
func (vu *VU) maybeFlush(now time.Time) {
	if len(vu.buf) >= vu.r.flushSamples || (len(vu.buf) > 0 && now.Sub(vu.lastFlush) >= vu.r.flushInterval) {
		vu.flush(now)
	}
}

func (vu *VU) flush(now time.Time) {
	vu.lastFlush = now
	if len(vu.buf) == 0 {
		return
	}
	// The pushed slice now belongs to the Pusher; start a new one.
	b := vu.buf
	vu.buf = nil
	vu.r.cfg.Pusher.PushSamples(b)
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
