package metrics

// Builtins holds the engine's own metrics (docs/k6-compat.md#built-in-metrics) that are not
// tied to a protocol module.
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
	b := &Builtins{
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
	for _, p := range ProtocolBuiltins {
		r.MustNewMetric(p.Name, p.Type, p.Contains)
	}
	return b
}

// ProtocolBuiltin is a metric of a k6 protocol module dnecho does not have.
type ProtocolBuiltin struct {
	Name     string
	Type     MetricType
	Contains ValueType
}

// ProtocolBuiltins are the HTTP, WebSocket and gRPC metrics k6 registers in every test, used or
// not (grafana/k6 metrics/builtin.go). They are registered here too, so that existing scripts'
// thresholds on them (often http_req_duration) are valid; with no samples they pass, as in k6.
var ProtocolBuiltins = []ProtocolBuiltin{
	{"http_reqs", Counter, Default},
	{"http_req_failed", Rate, Default},
	{"http_req_duration", Trend, Time},
	{"http_req_blocked", Trend, Time},
	{"http_req_connecting", Trend, Time},
	{"http_req_tls_handshaking", Trend, Time},
	{"http_req_sending", Trend, Time},
	{"http_req_waiting", Trend, Time},
	{"http_req_receiving", Trend, Time},
	{"ws_sessions", Counter, Default},
	{"ws_msgs_sent", Counter, Default},
	{"ws_msgs_received", Counter, Default},
	{"ws_ping", Trend, Time},
	{"ws_session_duration", Trend, Time},
	{"ws_connecting", Trend, Time},
	{"grpc_req_duration", Trend, Time},
}
