package slowdatanode

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// The breakdowns FromSnapshot reads (Breakdowns): per DataNode and mode, the calls of one attempt
// (echometrics.TagAttempts "") apart from retried ones, whose attempts
// echometrics.AttemptDuration has one by one.
var (
	byCalls    = []string{echometrics.TagMode, echometrics.TagAttempts}
	byAttempts = []string{echometrics.TagMode, echometrics.TagResult}
	byMode     = []string{echometrics.TagMode}
)

// Breakdowns are the breakdowns FromSnapshot reads, for the runner and the aggregator to keep
// (runner.Config.Breakdowns, aggregate.Options.Breakdowns): by DataNode and mode, of
// dnecho_req_duration and dnecho_req_failed apart for calls of one attempt, of
// dnecho_attempt_duration by result, of dnecho_tcp_rtt and dnecho_tcp_retransmits.
var Breakdowns = []ingest.ByTag{
	{Metric: echometrics.ReqDuration, Tag: echometrics.TagDataNode, And: byCalls},
	{Metric: echometrics.ReqFailed, Tag: echometrics.TagDataNode, And: byCalls},
	{Metric: echometrics.AttemptDuration, Tag: echometrics.TagDataNode, And: byAttempts},
	{Metric: echometrics.TCPRTT, Tag: echometrics.TagDataNode, And: byMode},
	{Metric: echometrics.TCPRetransmits, Tag: echometrics.TagDataNode, And: byMode},
}

// sinkRow is one DataNode and mode's sinks, as FromSnapshot gathers them.
type sinkRow struct {
	Row
	own bool // Attempts is FromSnapshot's own sink, which later sinks may be merged into
}

// FromSnapshot reads the rows of a run's snapshot (Breakdowns), in uuid then mode order: one per
// DataNode and mode, whose attempts are its calls of one attempt and the attempts of retried
// calls (their latencies each attempt's own part); values in ms. No row without a call.
func FromSnapshot(snap *ingest.Snapshot) []Row {
	rows := map[[2]string]*sinkRow{}
	get := func(v ingest.TagSink) *sinkRow {
		k := [2]string{v.Value, v.And[0]}
		r := rows[k]
		if r == nil {
			r = &sinkRow{Row: Row{UUID: v.Value, Mode: v.And[0], Unit: time.Millisecond}}
			rows[k] = r
		}
		return r
	}
	each(snap, echometrics.ReqDuration, byCalls, func(v ingest.TagSink, t *metrics.TrendSink) {
		if v.And[1] == "" {
			get(v).add(t, 0)
		}
	})
	each(snap, echometrics.AttemptDuration, byAttempts, func(v ingest.TagSink, t *metrics.TrendSink) {
		failed := int64(0)
		if v.And[1] != echo.LabelSuccess {
			failed = t.Count()
		}
		get(v).add(t, failed)
	})
	if len(rows) == 0 {
		return nil
	}
	each(snap, echometrics.ReqFailed, byCalls, func(v ingest.TagSink, r *metrics.RateSink) {
		if v.And[1] == "" {
			get(v).Failed += r.Trues
		}
	})
	each(snap, echometrics.TCPRTT, byMode, func(v ingest.TagSink, t *metrics.TrendSink) {
		get(v).RTT = t
	})
	each(snap, echometrics.TCPRetransmits, byMode, func(v ingest.TagSink, c *metrics.CounterSink) {
		get(v).Retransmits = uint64(c.Sum)
	})
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Row)
	}
	slices.SortFunc(out, func(a, b Row) int { return cmp.Or(strings.Compare(a.UUID, b.UUID), strings.Compare(a.Mode, b.Mode)) })
	return out
}

// add counts the attempts of t, failed of them failed, in the row.
func (r *sinkRow) add(t *metrics.TrendSink, failed int64) {
	r.Failed += failed
	switch {
	case r.Attempts == nil:
		r.Attempts = t
	case !r.own:
		own := metrics.NewTrendSink(metrics.Time)
		own.Merge(r.Attempts.(*metrics.TrendSink))
		own.Merge(t)
		r.Attempts, r.own = own, true
	default:
		r.Attempts.(*metrics.TrendSink).Merge(t)
	}
}

// each calls f with every value's sink of metric's breakdown by the DataNode and the tags and,
// when the sink is an S.
func each[S metrics.Sink](snap *ingest.Snapshot, metric string, and []string, f func(ingest.TagSink, S)) {
	b, ok := snap.By(ingest.ByTag{Metric: metric, Tag: echometrics.TagDataNode, And: and})
	if !ok {
		return
	}
	for _, v := range b.Values {
		if s, ok := v.Sink.(S); ok && v.Value != "" {
			f(v, s)
		}
	}
}

// BreakdownsWithSummary are the breakdowns `dnecho run` and `dnecho aggregate` keep: the
// echometrics.PerDataNode metrics by DataNode, which the end-of-test summary lists, then
// Breakdowns, which the per-DataNode block and the verdict read.
func BreakdownsWithSummary() []ingest.ByTag {
	var b []ingest.ByTag
	for _, m := range echometrics.PerDataNode {
		b = append(b, ingest.ByTag{Metric: m, Tag: echometrics.TagDataNode})
	}
	return append(b, Breakdowns...)
}
