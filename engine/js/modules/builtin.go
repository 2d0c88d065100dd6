package modules

import "github.com/dnecho/dnecho/engine/metrics"

// BuiltinMetrics are the built-in metrics that the script runner and the k6 modules emit
// (docs/k6-compat.md#built-in-metrics). Other built-ins (vus, http_*, grpc_*) belong to
// the scheduler and protocol modules.
type BuiltinMetrics struct {
	Iterations        *metrics.Metric
	IterationDuration *metrics.Metric
	Checks            *metrics.Metric
	GroupDuration     *metrics.Metric
	DataSent          *metrics.Metric
	DataReceived      *metrics.Metric
}

// NewBuiltinMetrics registers the runner's built-in metrics in r (or finds them there).
func NewBuiltinMetrics(r *metrics.Registry) (*BuiltinMetrics, error) {
	b := &BuiltinMetrics{}
	for _, d := range []struct {
		dst      **metrics.Metric
		name     string
		typ      metrics.MetricType
		contains metrics.ValueType
	}{
		{&b.Iterations, "iterations", metrics.Counter, metrics.Default},
		{&b.IterationDuration, "iteration_duration", metrics.Trend, metrics.Time},
		{&b.Checks, "checks", metrics.Rate, metrics.Default},
		{&b.GroupDuration, "group_duration", metrics.Trend, metrics.Time},
		{&b.DataSent, "data_sent", metrics.Counter, metrics.Data},
		{&b.DataReceived, "data_received", metrics.Counter, metrics.Data},
	} {
		m, err := r.NewMetric(d.name, d.typ, d.contains)
		if err != nil {
			return nil, err
		}
		*d.dst = m
	}
	return b, nil
}
