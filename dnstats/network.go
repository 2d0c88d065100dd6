package dnstats

import (
	"slices"
	"sync"
	"time"

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

// Fill completes dns with the network figures: the address when unknown, the RTT p50 and the
// retransmits. A DataNode the watch saw but no call reached is appended with its network figures
// only, in uuid order.
func (n *Network) Fill(dns []DataNode) []DataNode {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen := map[string]bool{}
	for i := range dns {
		seen[dns[i].UUID] = true
		if f := n.dns[dns[i].UUID]; f != nil {
			f.fill(&dns[i])
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
		d := DataNode{UUID: uuid}
		n.dns[uuid].fill(&d)
		dns = append(dns, d)
	}
	return dns
}

func (f *netFigures) fill(d *DataNode) {
	if d.Addr == "" {
		d.Addr = f.addr
	}
	d.Retransmits = f.retrans
	if c := f.rtt.Count(); c > 0 {
		d.RTT, d.HasRTT = time.Duration(medianRank(c, f.rtt.Rank)), true
	}
}

// medianRank is the median of n ranked values (the mean of the middle two for an even n).
func medianRank(n int64, rank func(int64) float64) float64 {
	if n%2 == 1 {
		return rank(n/2 + 1)
	}
	return (rank(n/2) + rank(n/2+1)) / 2
}
