package slowdatanode

import (
	"slices"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/internal/quantile"
	"github.com/dnecho/dnecho/ozone/echo"
)

// rttExactLimit bounds the RTT samples a Network keeps exactly per DataNode: a day of 250 ms
// ticks; beyond, they go to the quantile store's histogram.
const rttExactLimit = 24 * 3600 * 4

// Network gathers the network watch's samples per DataNode: every RTT sample, for its p50, and
// the latest retransmit total. It is safe for concurrent use; the zero value is ready.
type Network struct {
	mu  sync.Mutex
	dns map[string]*netFigures
}

type netFigures struct {
	addr    string
	rtt     *quantile.Store // ns
	retrans uint64
}

// Add records one tick of the session's network watch (echo.Session.WatchNetwork). A sample
// without a live connection adds no RTT.
func (n *Network) Add(samples []echo.NetworkSample) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.dns == nil {
		n.dns = map[string]*netFigures{}
	}
	for _, s := range samples {
		f := n.dns[s.DataNode.UUID]
		if f == nil {
			f = &netFigures{rtt: quantile.New(rttExactLimit, 1)}
			n.dns[s.DataNode.UUID] = f
		}
		if s.DataNode.Addr != "" {
			f.addr = s.DataNode.Addr
		}
		f.retrans = max(f.retrans, s.Retransmits)
		if s.Conns > 0 {
			f.rtt.Add(float64(s.RTT))
		}
	}
}

// Fill completes freon's rows (one mode, values in ns) with the network figures: the address
// when unknown, the RTT samples and the retransmits. A DataNode the watch saw but no call reached
// is appended with its network figures only, in uuid order.
func (n *Network) Fill(rows []Row) []Row {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen := map[string]bool{}
	for i := range rows {
		seen[rows[i].UUID] = true
		if f := n.dns[rows[i].UUID]; f != nil {
			f.fill(&rows[i])
		}
	}
	var extra []string
	for uuid := range n.dns {
		if !seen[uuid] {
			extra = append(extra, uuid)
		}
	}
	slices.Sort(extra)
	for _, uuid := range extra {
		r := Row{UUID: uuid, Unit: time.Nanosecond}
		n.dns[uuid].fill(&r)
		rows = append(rows, r)
	}
	return rows
}

func (f *netFigures) fill(r *Row) {
	if r.Addr == "" {
		r.Addr = f.addr
	}
	r.Retransmits = f.retrans
	r.RTT = rtts{f.rtt.Clone()}
}

// rtts are a DataNode's RTT samples (ns) as a Distribution, with k6's percentile rule (its median
// is the mean of the middle two of an even count).
type rtts struct{ s *quantile.Store }

func (r rtts) Count() int64                 { return r.s.Count() }
func (r rtts) Rank(n int64) float64         { return r.s.Rank(n) }
func (r rtts) Percentile(p float64) float64 { return metrics.Percentile(r.s.Count(), r.s.Rank, p) }
