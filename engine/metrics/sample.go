package metrics

import "time"

// Sample is one measured value of one metric.
type Sample struct {
	Metric *Metric
	Time   time.Time
	Value  float64
	Tags   *Tags
	// Metadata holds non-indexed values (k6: vu, iter); it is not used for series or sub-metrics.
	Metadata map[string]string
}

// Pusher receives samples. Implementations must be safe for concurrent use. Producers buffer
// samples (per VU) and push them in batches; a pushed slice is owned by the receiver.
type Pusher interface {
	PushSamples(samples []Sample)
}

// PusherFunc adapts a function to Pusher.
type PusherFunc func([]Sample)

// PushSamples calls f.
func (f PusherFunc) PushSamples(s []Sample) { f(s) }
