package echometrics

import (
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// The breakdowns the per-DataNode block and the verdict read (DataNodeBreakdowns): per DataNode
// and mode, the calls of one attempt (TagAttempts "") apart from retried ones, whose attempts
// AttemptDuration has one by one.
var (
	byCalls    = []string{TagMode, TagAttempts}
	byAttempts = []string{TagMode, TagResult}
	byMode     = []string{TagMode}
)

// DataNodeBreakdowns are the breakdowns DataNodes reads, for the runner and the aggregator to
// keep (runner.Config.Breakdowns): by DataNode and mode, of ReqDuration and ReqFailed apart for
// calls of one attempt, of AttemptDuration by result, of TCPRTT and TCPRetransmits.
var DataNodeBreakdowns = []ingest.ByTag{
	{Metric: ReqDuration, Tag: TagDataNode, And: byCalls},
	{Metric: ReqFailed, Tag: TagDataNode, And: byCalls},
	{Metric: AttemptDuration, Tag: TagDataNode, And: byAttempts},
	{Metric: TCPRTT, Tag: TagDataNode, And: byMode},
	{Metric: TCPRetransmits, Tag: TagDataNode, And: byMode},
}

// row is one DataNode and mode's sinks, as DataNodes gathers them.
type row struct {
	d       dnstats.DataNode
	latency *metrics.TrendSink // the attempts' own latencies
	merged  bool               // latency is DataNodes' own copy, which later sinks may be added to
}

// DataNodes reads a run's per-DataNode figures from its snapshot (DataNodeBreakdowns): one row
// per DataNode and mode, whose attempts are its calls of one attempt and the attempts of retried
// calls (their latencies each attempt's own part). addr gives the address of a DataNode by uuid
// and mode, which no tag carries (nil: none known). The rows come in dnstats.Rows order; nil when
// no call was recorded.
func DataNodes(snap *ingest.Snapshot, addr func(uuid string, mode echo.Mode) string) []dnstats.DataNode {
	rows := map[[2]string]*row{}
	get := func(v ingest.TagSink) *row {
		k := [2]string{v.Value, v.And[0]}
		r := rows[k]
		if r == nil {
			r = &row{d: dnstats.DataNode{UUID: v.Value, Mode: v.And[0]}}
			if addr != nil {
				r.d.Addr = addr(v.Value, echo.Mode(v.And[0]))
			}
			rows[k] = r
		}
		return r
	}
	each(snap, ReqDuration, byCalls, func(v ingest.TagSink, t *metrics.TrendSink) {
		if v.And[1] == "" {
			get(v).add(t, 0)
		}
	})
	each(snap, AttemptDuration, byAttempts, func(v ingest.TagSink, t *metrics.TrendSink) {
		failed := int64(0)
		if v.And[1] != echo.LabelSuccess {
			failed = t.Count()
		}
		get(v).add(t, failed)
	})
	if len(rows) == 0 {
		return nil
	}
	each(snap, ReqFailed, byCalls, func(v ingest.TagSink, r *metrics.RateSink) {
		if v.And[1] == "" {
			get(v).d.Failed += r.Trues
		}
	})
	each(snap, TCPRTT, byMode, func(v ingest.TagSink, t *metrics.TrendSink) {
		if t.Count() > 0 {
			r := get(v)
			r.d.RTT, r.d.HasRTT = millis(t.Percentile(50)), true
		}
	})
	each(snap, TCPRetransmits, byMode, func(v ingest.TagSink, c *metrics.CounterSink) {
		get(v).d.Retransmits = uint64(c.Sum)
	})
	out := make([]dnstats.DataNode, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.figures())
	}
	return dnstats.Rows(out)
}

// add counts the attempts of t, failed of them failed, in the row.
func (r *row) add(t *metrics.TrendSink, failed int64) {
	r.d.Attempts += t.Count()
	r.d.Failed += failed
	switch {
	case r.latency == nil:
		r.latency = t
	case !r.merged:
		own := metrics.NewTrendSink(metrics.Time)
		own.Merge(r.latency)
		own.Merge(t)
		r.latency, r.merged = own, true
	default:
		r.latency.Merge(t)
	}
}

// figures are the row's DataNode with its latency percentiles.
func (r *row) figures() dnstats.DataNode {
	d := r.d
	if t := r.latency; t != nil && t.Count() > 0 {
		d.P50, d.P99 = millis(t.Percentile(50)), millis(t.Percentile(99))
		d.Latencies = dnstats.Ranked(t.Count(), t.Rank, time.Millisecond)
	}
	return d
}

// each calls f with every value's sink of metric's breakdown by TagDataNode and the tags and,
// when the sink is an S.
func each[S metrics.Sink](snap *ingest.Snapshot, metric string, and []string, f func(ingest.TagSink, S)) {
	b, ok := snap.By(ingest.ByTag{Metric: metric, Tag: TagDataNode, And: and})
	if !ok {
		return
	}
	for _, v := range b.Values {
		if s, ok := v.Sink.(S); ok && v.Value != "" {
			f(v, s)
		}
	}
}

func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
