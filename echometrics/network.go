package echometrics

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Network turns the ticks of one session's network watch into samples: per DataNode, its
// smoothed RTT (when it had a live connection) as TCPRTT and the retransmits since the previous
// tick as TCPRetransmits — the first tick of a DataNode counts all since the session opened, so
// the counter's sum is the total. It is used from the watch's one goroutine.
type Network struct {
	m    *Set
	base *metrics.Tags
	last map[string]uint64        // retransmit total per DataNode at its previous tick
	tags map[string]*metrics.Tags // base with the DataNode
}

// NewNetwork returns the sample maker for one session, its samples tagged with base (FixedTags
// and the caller's), the session's mode (its transport's connections are the ones measured) and
// the DataNode.
func NewNetwork(m *Set, base *metrics.Tags, mode echo.Mode) *Network {
	return &Network{m: m, base: base.With(TagMode, string(mode)), last: map[string]uint64{}, tags: map[string]*metrics.Tags{}}
}

// Samples returns the samples of one tick.
func (n *Network) Samples(tick []echo.NetworkSample) []metrics.Sample {
	out := make([]metrics.Sample, 0, 2*len(tick))
	for _, s := range tick {
		uuid := s.DataNode.UUID
		tags := n.tags[uuid]
		if tags == nil {
			tags = n.base.With(TagDataNode, uuid)
			n.tags[uuid] = tags
		}
		if s.Conns > 0 {
			out = append(out, metrics.Sample{Metric: n.m.RTT, Time: s.At, Value: float64(s.RTT) / float64(time.Millisecond), Tags: tags})
		}
		prev, seen := n.last[uuid]
		if !seen || s.Retransmits >= prev { // the total only grows; a smaller one is a new session's
			out = append(out, metrics.Sample{Metric: n.m.Retransmits, Time: s.At, Value: float64(s.Retransmits - prev), Tags: tags})
		}
		n.last[uuid] = s.Retransmits
	}
	return out
}
