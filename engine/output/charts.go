package output

// Charts names what the web dashboard, its report and the aggregator's report chart as calls:
// a front end fills it with its protocol's metrics and tags (cmd/dnecho from echometrics). Left
// empty, they chart the script's iterations and iteration_duration instead.
type Charts struct {
	Latency   string // a Trend (time): one call's latency, charted as percentiles per period
	Requests  string // a Counter of calls, charted as calls per second
	Breakdown string // a tag of Latency: p99 per value (a slow server stands out)
	Result    string // a tag of Requests: calls per second per value (the outcome)
}

// Metrics lists the metrics the charts read: Latency and Requests when named, and the
// iteration metrics every script has.
func (c Charts) Metrics() []string {
	var out []string
	for _, m := range []string{c.Latency, c.Requests} {
		if m != "" {
			out = append(out, m)
		}
	}
	return append(out, "iterations", "iteration_duration")
}
