package slowdatanode

import (
	"time"

	"github.com/dnecho/dnecho/ozone/echo"
)

// Distribution is a set of latencies as a front end keeps them: an engine Trend's sink (k6's
// percentile rule, ms), freon's per-DataNode store (Dropwizard's rule, ns), the network watch's
// RTT samples (Network).
type Distribution interface {
	// Count is the number of values.
	Count() int64
	// Percentile is the p-th percentile (0 to 100) by the front end's own rule.
	Percentile(p float64) float64
	// Rank is the r-th smallest value (1-based, 1..Count).
	Rank(r int64) float64
}

// Row is what a front end aggregated for one DataNode and mode: each front end fills rows from
// its own aggregation (FromSnapshot for `dnecho run` and `dnecho aggregate`, Report.Card for the
// web dashboard, freon's groups and Network for `dnecho freon dn-echo`), and DataNodes makes them
// the block's figures.
type Row struct {
	UUID, Mode string
	// Addr is the address dialled, when the front end knows it ("": DataNodes asks its addr).
	Addr string
	// Attempts are the latencies of the attempts that went to the DataNode (nil: none), Failed
	// how many of them failed.
	Attempts Distribution
	Failed   int64
	// RTT are the sampled smoothed round-trip times of the connections to the DataNode (nil or
	// empty: none sampled), Retransmits the TCP segments retransmitted to it.
	RTT         Distribution
	Retransmits uint64
	// Unit is the unit of the values of Attempts and RTT.
	Unit time.Duration
}

// DataNodes makes rows the block's figures, in the same order: counts, the attempts' p50 and p99
// and latencies (the tail test's), the RTT p50, the address from addr (by uuid and mode; nil:
// none) when the row has none; the mode is dropped when every row has the same (Rows).
func DataNodes(rows []Row, addr func(uuid string, mode echo.Mode) string) []DataNode {
	if len(rows) == 0 {
		return nil
	}
	out := make([]DataNode, len(rows))
	for i, r := range rows {
		d := DataNode{UUID: r.UUID, Addr: r.Addr, Mode: r.Mode, Failed: r.Failed, Retransmits: r.Retransmits}
		if d.Addr == "" && addr != nil {
			d.Addr = addr(r.UUID, echo.Mode(r.Mode))
		}
		if a := r.Attempts; a != nil && a.Count() > 0 {
			d.Attempts, d.P50, d.P99 = a.Count(), r.duration(a.Percentile(50)), r.duration(a.Percentile(99))
			d.Latencies = Ranked(a.Count(), a.Rank, r.Unit)
		}
		if t := r.RTT; t != nil && t.Count() > 0 {
			d.RTT, d.HasRTT = r.duration(t.Percentile(50)), true
		}
		out[i] = d
	}
	return oneMode(out)
}

// duration is a value of the row's distributions as a Duration.
func (r Row) duration(v float64) time.Duration { return time.Duration(v * float64(r.Unit)) }
