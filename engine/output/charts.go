package output

import "github.com/dnecho/dnecho/engine/metrics"

// Charts names what the web dashboard, its report and the aggregator's report chart as calls:
// a front end fills it with its protocol's metrics and tags (cmd/dnecho from echometrics). Left
// empty, they chart the script's iterations and iteration_duration instead.
type Charts struct {
	Latency   string // a Trend (time): one call's latency, charted as percentiles per period
	Requests  string // a Counter of calls, charted as calls per second
	Breakdown string // a tag of Latency: p99 per value (a slow server stands out)
	Result    string // a tag of Requests: calls per second per value (the outcome)

	// Network is a Trend (time) tagged with Breakdown: the part of a call's time the network
	// takes (a round-trip time). Per Breakdown value the dashboard charts its p50 beside the rest
	// of Latency's p50, and its per-server table shows it.
	Network string
	// Retransmits is a Counter tagged with Breakdown that the per-server table sums per value.
	Retransmits string
	// Attempt is a Trend (time) tagged with Breakdown and Result: the attempts of the calls that
	// tried more than one server, each its own part of the call's Latency. The per-server table
	// counts each attempt at its server; those calls' Latency samples, marked with the tag
	// Retried, it leaves out.
	Attempt, Retried string
	// Mode, when set, is a tag of Latency, Attempt, Network and Retransmits that splits the
	// per-server table: one row per server and mode.
	Mode string
	// Success is the Result value of a call or attempt that succeeded; the per-server table
	// counts the others as failed.
	Success string
	// Judge, when set, judges the per-server figures of the whole test so far, in Breakdown
	// order; the dashboard shows the lines it returns under its per-server table.
	Judge func([]Server) []string
	// Short, when set, is how chart legends name a Breakdown value.
	Short func(value string) string
}

// Server is one Breakdown value's (and Mode value's) figures over the whole test so far, as the
// dashboard gives them to Charts.Judge: its sinks, live, to be read during the call only.
type Server struct {
	Name string // the Breakdown value
	Mode string // the Mode value ("" without Charts.Mode)
	// Latency holds the attempts' latencies (ms): Latency samples of calls of one attempt and
	// Attempt samples; Failed counts those whose Result is not Success.
	Latency *metrics.TrendSink
	Failed  int64
	// Network holds the Network samples (ms), Retransmits the sum of Retransmits.
	Network     *metrics.TrendSink
	Retransmits float64
}

// Metrics lists the metrics the charts read: Latency, Requests, Network, Retransmits and Attempt
// when named, and the iteration metrics every script has.
func (c Charts) Metrics() []string {
	var out []string
	for _, m := range []string{c.Latency, c.Requests, c.Network, c.Retransmits, c.Attempt} {
		if m != "" {
			out = append(out, m)
		}
	}
	return append(out, "iterations", "iteration_duration")
}
