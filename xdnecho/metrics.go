package xdnecho

import (
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// The metric and tag names are those of internal/echometrics, shared with the freon command.
const (
	MetricReqDuration = echometrics.ReqDuration
	MetricReqs        = echometrics.Reqs
	MetricReqFailed   = echometrics.ReqFailed
	TagDataNode       = echometrics.TagDataNode
)

// PerDataNode are the metrics whose end-of-test summary is worth breaking down by DataNode.
var PerDataNode = echometrics.PerDataNode

// echoMetrics registers the metrics in the test's registry once per Root (one Root per test).
func (r *Root) echoMetrics(t *modules.Test) (*echometrics.Set, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logger == nil {
		r.logger = t.Logger
	}
	if r.metrics != nil {
		return r.metrics, nil
	}
	m, err := echometrics.Register(t.Registry)
	if err != nil {
		return nil, err
	}
	r.metrics = m
	return m, nil
}

// push emits the samples of one call into the VU's buffer, with the VU's metadata of when the
// call was made (echoAsync settles later).
func push(m *echometrics.Set, vu modules.VU, now time.Time, tags *metrics.Tags, meta map[string]string, r *echo.Result) {
	m.Fill(vu.Reserve(echometrics.SamplesPerCall), now, tags, meta, r)
	// The VU reports these as data_sent/data_received of the iteration, as k6 protocols do.
	vu.AddData(int64(r.BytesSent), int64(r.BytesReceived))
}

// tagKey identifies a sample tag set: the VU's current tags (by identity: the engine builds a new
// value whenever a group, scenario or exec.vu.metrics.tags changes them), the call's outcome and
// its mode.
type tagKey struct {
	vu       *metrics.Tags
	pipeline string
	datanode string
	result   string
	mode     echo.Mode
	attempts int // of a call that tried more than one DataNode; 0 otherwise
}

// maxCachedTagSets bounds a tagCache. A script that sets a fresh VU tag on every iteration would
// otherwise grow it without end; the cache then just rebuilds.
const maxCachedTagSets = 256

// tagCache builds a Client's sample tags once per (VU tags, pipeline, DataNode, result, mode,
// attempts) in one VU, so
// the success path of a call neither merges tags nor allocates.
type tagCache struct {
	fixed *metrics.Tags // client tags overridden by container and stream
	last  tagKey
	tags  *metrics.Tags // for last
	m     map[tagKey]*metrics.Tags
}

func newTagCache(fixed *metrics.Tags) tagCache {
	return tagCache{fixed: fixed, m: map[tagKey]*metrics.Tags{}}
}

// get returns the tags of a call: the VU's tags, then the client's, then dnecho's own.
func (c *tagCache) get(vu *metrics.Tags, r *echo.Result, mode echo.Mode) *metrics.Tags {
	k := tagKey{vu: vu, pipeline: r.Pipeline, datanode: r.DataNode.UUID, result: r.Label, mode: mode, attempts: echometrics.AttemptSamples(r)}
	if k == c.last && c.tags != nil {
		return c.tags
	}
	t, ok := c.m[k]
	if !ok {
		if len(c.m) >= maxCachedTagSets {
			clear(c.m)
		}
		t = echometrics.CallTags(vu.Merge(c.fixed), r, mode)
		c.m[k] = t
	}
	c.last, c.tags = k, t
	return t
}
