package js

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// push appends a sample to the VU's buffer.
func (vu *VU) push(s metrics.Sample) {
	if vu.buf == nil {
		vu.buf = metrics.GetBatch(vu.r.flushSamples)
	}
	vu.buf = append(vu.buf, s)
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
	b := vu.r.test.Builtin
	tags, meta := vu.tags.Current(), vu.tags.Metadata()
	vu.push(metrics.Sample{Metric: b.DataSent, Time: now, Value: float64(vu.sent), Tags: tags, Metadata: meta})
	vu.push(metrics.Sample{Metric: b.DataReceived, Time: now, Value: float64(vu.received), Tags: tags, Metadata: meta})
	vu.sent, vu.received = 0, 0
}
