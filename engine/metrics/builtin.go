package metrics

// Builtins holds the engine's own metrics (spec §8.1) that are not tied to a protocol module.
type Builtins struct {
	VUs               *Metric // gauge, every second
	VUsMax            *Metric // gauge, every second
	Iterations        *Metric // counter, per complete iteration
	IterationDuration *Metric // trend (time)
	DroppedIterations *Metric // counter, arrival-rate executors
	Checks            *Metric // rate, one sample per check
	GroupDuration     *Metric // trend (time), per group() call
	DataSent          *Metric // counter (data)
	DataReceived      *Metric // counter (data)
}

// RegisterBuiltins registers the built-in metrics. Call it on a fresh registry, before any script
// metric, so the names cannot already exist with another type.
func RegisterBuiltins(r *Registry) *Builtins {
	return &Builtins{
		VUs:               r.MustNewMetric("vus", Gauge, Default),
		VUsMax:            r.MustNewMetric("vus_max", Gauge, Default),
		Iterations:        r.MustNewMetric("iterations", Counter, Default),
		IterationDuration: r.MustNewMetric("iteration_duration", Trend, Time),
		DroppedIterations: r.MustNewMetric("dropped_iterations", Counter, Default),
		Checks:            r.MustNewMetric("checks", Rate, Default),
		GroupDuration:     r.MustNewMetric("group_duration", Trend, Time),
		DataSent:          r.MustNewMetric("data_sent", Counter, Data),
		DataReceived:      r.MustNewMetric("data_received", Counter, Data),
	}
}
