// Package echometrics defines the dnecho_* metrics and their tags once, for both front ends: the
// k6/x/dnecho module (xdnecho) emits them from scripts, `dnecho freon dn-echo -o ...` emits the
// same samples to the same outputs, so dashboards and queries work for either.
package echometrics

import (
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Metric names. The dnecho_ prefix keeps them apart from k6's protocol metrics (grpc_*), which
// have other tags and semantics.
const (
	ReqDuration  = "dnecho_req_duration"  // Trend (time): echo.Result.Latency of one call, in ms
	Reqs         = "dnecho_reqs"          // Counter: calls
	ReqFailed    = "dnecho_req_failed"    // Rate: 1 for a failed call, 0 for SUCCESS
	DataSent     = "dnecho_data_sent"     // Counter (data): request bytes, all attempts
	DataReceived = "dnecho_data_received" // Counter (data): response bytes
	// AttemptDuration is a Trend (time): the own part of the call's latency of each attempt of a
	// call that tried more than one DataNode (echo.Result.Earlier and LastLatency), in ms, tagged
	// with the DataNode it went to and its own result.
	AttemptDuration = "dnecho_attempt_duration"
)

// IterationStartDelay is the Trend (time) `dnecho run` records of how late arrival-rate iterations
// started compared with their schedule (runner.Config.StartDelayMetric): a generator that falls
// behind shows up there before it shows up as dropped_iterations.
const IterationStartDelay = "dnecho_iteration_start_delay"

// Metric names of the session's network watch (ozone/echo WatchNetwork), one sample per DataNode
// per tick, and of the slow-DataNode verdict (package slowdatanode, docs/slow-datanode.md).
const (
	TCPRTT         = "dnecho_tcp_rtt"         // Trend (time): smoothed TCP RTT (tcpi_rtt) to a DataNode, in ms
	TCPRetransmits = "dnecho_tcp_retransmits" // Counter: TCP segments retransmitted to a DataNode since the previous tick
	SlowDataNodes  = "dnecho_slow_datanodes"  // Gauge: DataNodes the verdict names slow, set at the end of the test
)

// Tag names every dnecho sample carries.
const (
	TagDataNode  = "datanode"  // uuid of the DataNode that answered or failed last
	TagContainer = "container" // container id
	TagPipeline  = "pipeline"  // pipeline id
	TagResult    = "result"    // echo.Result.Label: SUCCESS, an Ozone result or a gRPC status
	TagStream    = "stream"    // new or reuse
	TagMode      = "mode"      // echo.Mode: grpc, ratis-read or ratis-write
	// TagAttempts is the number of DataNodes a call tried, on the samples of a call that tried
	// more than one (over gRPC, echo.Result.Earlier): absent from a call of one attempt, so a run
	// without retries has no more series than before.
	TagAttempts = "attempts"
)

// PerDataNode are the metrics whose end-of-test summary is worth breaking down by DataNode: with
// calls spread over replicas one slow or failing node stands out. The per-DataNode block and the
// verdict of `dnecho run` read these breakdowns (DataNodes).
var PerDataNode = []string{ReqDuration, Reqs, ReqFailed, TCPRTT, TCPRetransmits}

// Charts are the metrics and tags the web dashboard and the reports chart as calls: latency
// percentiles and p99 per DataNode from ReqDuration, calls per second per result from Reqs; the
// per-DataNode table counts attempts per DataNode and mode, as the end of the test does
// (DataNodes).
var Charts = output.Charts{Latency: ReqDuration, Requests: Reqs, Breakdown: TagDataNode, Result: TagResult,
	Attempt: AttemptDuration, Retried: TagAttempts, Mode: TagMode, Success: echo.LabelSuccess}

// SamplesPerCall is how many samples Fill writes for one call.
const SamplesPerCall = 5

// Set is the dnecho metrics registered in one registry.
type Set struct {
	Duration, Reqs, Failed, Sent, Received, Attempt *metrics.Metric
	// RTT and Retransmits are the network watch's, Slow the verdict's.
	RTT, Retransmits, Slow *metrics.Metric
}

// Register adds the metrics to reg (or finds them there).
func Register(reg *metrics.Registry) (*Set, error) {
	m := &Set{}
	for _, d := range []struct {
		dst      **metrics.Metric
		name     string
		typ      metrics.MetricType
		contains metrics.ValueType
	}{
		{&m.Duration, ReqDuration, metrics.Trend, metrics.Time},
		{&m.Reqs, Reqs, metrics.Counter, metrics.Default},
		{&m.Failed, ReqFailed, metrics.Rate, metrics.Default},
		{&m.Sent, DataSent, metrics.Counter, metrics.Data},
		{&m.Received, DataReceived, metrics.Counter, metrics.Data},
		{&m.Attempt, AttemptDuration, metrics.Trend, metrics.Time},
		{&m.RTT, TCPRTT, metrics.Trend, metrics.Time},
		{&m.Retransmits, TCPRetransmits, metrics.Counter, metrics.Default},
		{&m.Slow, SlowDataNodes, metrics.Gauge, metrics.Default},
	} {
		var err error
		if *d.dst, err = reg.NewMetric(d.name, d.typ, d.contains); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Fill writes the SamplesPerCall samples of one call into dst, which must have room for them;
// they share one tag set and one timestamp.
func (m *Set) Fill(dst []metrics.Sample, now time.Time, tags *metrics.Tags, meta map[string]string, r *echo.Result) {
	fail := 0.0
	if r.Err != nil {
		fail = 1
	}
	dst[0] = metrics.Sample{Metric: m.Duration, Time: now, Value: float64(r.Latency) / float64(time.Millisecond), Tags: tags, Metadata: meta}
	dst[1] = metrics.Sample{Metric: m.Reqs, Time: now, Value: 1, Tags: tags, Metadata: meta}
	dst[2] = metrics.Sample{Metric: m.Failed, Time: now, Value: fail, Tags: tags, Metadata: meta}
	dst[3] = metrics.Sample{Metric: m.Sent, Time: now, Value: float64(r.BytesSent), Tags: tags, Metadata: meta}
	dst[4] = metrics.Sample{Metric: m.Received, Time: now, Value: float64(r.BytesReceived), Tags: tags, Metadata: meta}
}

// AttemptSamples is how many samples FillAttempts writes for r: one per attempt of a call that
// tried more than one DataNode, none for a call of one attempt.
func AttemptSamples(r *echo.Result) int {
	if len(r.Earlier) == 0 {
		return 0
	}
	return len(r.Earlier) + 1
}

// FillAttempts writes the AttemptSamples(r) samples of a call's attempts into dst: each
// attempt's own latency, tagged with base, the call's pipeline and mode, and the attempt's own
// DataNode and result. It allocates their tag sets, which only a retried call needs.
func (m *Set) FillAttempts(dst []metrics.Sample, now time.Time, base *metrics.Tags, meta map[string]string, r *echo.Result, mode echo.Mode) {
	if len(r.Earlier) == 0 {
		return
	}
	base = base.With(TagPipeline, r.Pipeline).With(TagMode, string(mode))
	sample := func(dn, result string, d time.Duration) metrics.Sample {
		return metrics.Sample{Metric: m.Attempt, Time: now, Value: float64(d) / float64(time.Millisecond),
			Tags: base.With(TagDataNode, dn).With(TagResult, result), Metadata: meta}
	}
	for i, a := range r.Earlier {
		dst[i] = sample(a.DataNode.UUID, a.Label, a.Latency)
	}
	dst[len(r.Earlier)] = sample(r.DataNode.UUID, r.Label, r.LastLatency())
}

// FixedTags are the tags a session gives all its samples, container and stream, over the
// caller's own. The pipeline is a call's tag (CallTags): a session moves when its container does.
func FixedTags(own map[string]string, s *echo.Session) *metrics.Tags {
	spec := s.Spec()
	return metrics.NewTags(own).Merge(metrics.NewTags(map[string]string{
		TagContainer: strconv.FormatInt(spec.ContainerID, 10),
		TagStream:    string(spec.Stream),
	}))
}

// CallTags adds one call's pipeline, DataNode, result and mode to base, and its attempts when it
// tried more than one DataNode.
func CallTags(base *metrics.Tags, r *echo.Result, mode echo.Mode) *metrics.Tags {
	t := base.With(TagPipeline, r.Pipeline).With(TagDataNode, r.DataNode.UUID).With(TagResult, r.Label).With(TagMode, string(mode))
	if n := AttemptSamples(r); n > 0 {
		t = t.With(TagAttempts, strconv.Itoa(n))
	}
	return t
}
