package xdnecho

import (
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Metric names. The dnecho_ prefix keeps them apart from k6's protocol metrics (grpc_*), which
// have other tags and semantics.
const (
	MetricReqDuration  = "dnecho_req_duration"  // Trend (time): latency of one echo() in ms (echo.Result.Latency)
	MetricReqs         = "dnecho_reqs"          // Counter: echo() calls
	MetricReqFailed    = "dnecho_req_failed"    // Rate: 1 for a failed call, 0 for SUCCESS
	MetricDataSent     = "dnecho_data_sent"     // Counter (data): request bytes, all attempts
	MetricDataReceived = "dnecho_data_received" // Counter (data): response bytes
)

// Tag names every dnecho sample carries (besides the VU's tags).
const (
	TagDataNode  = "datanode"  // uuid of the DataNode that answered or failed last
	TagContainer = "container" // container id
	TagPipeline  = "pipeline"  // pipeline id
	TagResult    = "result"    // Ozone result or gRPC status name
	TagStream    = "stream"    // new or reuse
)

// PerDataNode are the metrics whose end-of-test summary is worth breaking down by DataNode: with
// calls spread over replicas (target 'all') one slow or failing node stands out.
var PerDataNode = []string{MetricReqDuration, MetricReqs, MetricReqFailed}

// echoMetrics are the module's metrics in one test's registry.
type echoMetrics struct {
	duration, reqs, failed, sent, received *metrics.Metric
}

// echoMetrics registers the metrics in the test's registry once per Root (one Root per test).
func (r *Root) echoMetrics(t *modules.Test) (*echoMetrics, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logger == nil {
		r.logger = t.Logger
	}
	if r.metrics != nil {
		return r.metrics, nil
	}
	m := &echoMetrics{}
	for _, d := range []struct {
		dst      **metrics.Metric
		name     string
		typ      metrics.MetricType
		contains metrics.ValueType
	}{
		{&m.duration, MetricReqDuration, metrics.Trend, metrics.Time},
		{&m.reqs, MetricReqs, metrics.Counter, metrics.Default},
		{&m.failed, MetricReqFailed, metrics.Rate, metrics.Default},
		{&m.sent, MetricDataSent, metrics.Counter, metrics.Data},
		{&m.received, MetricDataReceived, metrics.Counter, metrics.Data},
	} {
		var err error
		if *d.dst, err = t.Registry.NewMetric(d.name, d.typ, d.contains); err != nil {
			return nil, err
		}
	}
	r.metrics = m
	return m, nil
}

// push emits the samples of one call. The samples share one tag set, metadata and timestamp.
func (m *echoMetrics) push(vu modules.VU, now time.Time, tags *metrics.Tags, meta map[string]string, rtt time.Duration, failed bool, sent, received int) {
	fail := 0.0
	if failed {
		fail = 1
	}
	s := vu.Reserve(5)
	s[0] = metrics.Sample{Metric: m.duration, Time: now, Value: float64(rtt) / float64(time.Millisecond), Tags: tags, Metadata: meta}
	s[1] = metrics.Sample{Metric: m.reqs, Time: now, Value: 1, Tags: tags, Metadata: meta}
	s[2] = metrics.Sample{Metric: m.failed, Time: now, Value: fail, Tags: tags, Metadata: meta}
	s[3] = metrics.Sample{Metric: m.sent, Time: now, Value: float64(sent), Tags: tags, Metadata: meta}
	s[4] = metrics.Sample{Metric: m.received, Time: now, Value: float64(received), Tags: tags, Metadata: meta}
	// The VU reports these as data_sent/data_received of the iteration, as k6 protocols do.
	vu.AddData(int64(sent), int64(received))
}

// tagKey identifies a sample tag set: the VU's current tags (by identity: the engine builds a new
// value whenever a group, scenario or exec.vu.metrics.tags changes them), and the call's outcome.
type tagKey struct {
	vu       *metrics.Tags
	datanode string
	result   string
}

// maxCachedTagSets bounds a tagCache. A script that sets a fresh VU tag on every iteration would
// otherwise grow it without end; the cache then just rebuilds.
const maxCachedTagSets = 256

// tagCache builds a Client's sample tags once per (VU tags, DataNode, result) in one VU, so the
// success path of a call neither merges tags nor allocates.
type tagCache struct {
	fixed *metrics.Tags // client tags overridden by container, pipeline and stream
	last  tagKey
	tags  *metrics.Tags // for last
	m     map[tagKey]*metrics.Tags
}

func newTagCache(clientTags map[string]string, container int64, pipeline, stream string) tagCache {
	fixed := metrics.NewTags(clientTags).Merge(metrics.NewTags(map[string]string{
		TagContainer: strconv.FormatInt(container, 10),
		TagPipeline:  pipeline,
		TagStream:    stream,
	}))
	return tagCache{fixed: fixed, m: map[tagKey]*metrics.Tags{}}
}

// get returns the tags of a call: the VU's tags, then the client's, then dnecho's own.
func (c *tagCache) get(vu *metrics.Tags, datanode, result string) *metrics.Tags {
	k := tagKey{vu: vu, datanode: datanode, result: result}
	if k == c.last && c.tags != nil {
		return c.tags
	}
	t, ok := c.m[k]
	if !ok {
		if len(c.m) >= maxCachedTagSets {
			clear(c.m)
		}
		t = vu.Merge(c.fixed).With(TagDataNode, datanode).With(TagResult, result)
		c.m[k] = t
	}
	c.last, c.tags = k, t
	return t
}
