package echometrics

import (
	"slices"
	"strings"
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
)

// DataNodes reads a run's per-DataNode figures from its end-of-test snapshot: the breakdowns by
// TagDataNode of ReqDuration (calls, p50, p99), TCPRTT (p50) and TCPRetransmits (sum), which the
// runner keeps when asked (PerDataNode). addrs gives the DataNodes' addresses by uuid, which no
// tag carries. The DataNodes come in uuid order; nil when no call was recorded.
func DataNodes(snap *ingest.Snapshot, addrs map[string]string) []dnstats.DataNode {
	byUUID := map[string]*dnstats.DataNode{}
	get := func(uuid string) *dnstats.DataNode {
		d := byUUID[uuid]
		if d == nil {
			d = &dnstats.DataNode{UUID: uuid, Addr: addrs[uuid]}
			byUUID[uuid] = d
		}
		return d
	}
	each(snap, ReqDuration, func(uuid string, sink metrics.Sink) {
		if t, ok := sink.(*metrics.TrendSink); ok && t.Count() > 0 {
			d := get(uuid)
			d.Calls, d.P50, d.P99 = t.Count(), millis(t.Percentile(50)), millis(t.Percentile(99))
			d.Latencies = dnstats.Ranked(t.Count(), t.Rank, time.Millisecond)
		}
	})
	if len(byUUID) == 0 {
		return nil
	}
	each(snap, TCPRTT, func(uuid string, sink metrics.Sink) {
		if t, ok := sink.(*metrics.TrendSink); ok && t.Count() > 0 {
			d := get(uuid)
			d.RTT, d.HasRTT = millis(t.Percentile(50)), true
		}
	})
	each(snap, TCPRetransmits, func(uuid string, sink metrics.Sink) {
		if c, ok := sink.(*metrics.CounterSink); ok {
			get(uuid).Retransmits = uint64(c.Sum)
		}
	})
	out := make([]dnstats.DataNode, 0, len(byUUID))
	for _, d := range byUUID {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b dnstats.DataNode) int { return strings.Compare(a.UUID, b.UUID) })
	return out
}

// each calls f with every DataNode's sink of metric's breakdown by TagDataNode.
func each(snap *ingest.Snapshot, metric string, f func(uuid string, sink metrics.Sink)) {
	b, ok := snap.Breakdown(metric, TagDataNode)
	if !ok {
		return
	}
	for _, v := range b.Values {
		if v.Value != "" {
			f(v.Value, v.Sink)
		}
	}
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
