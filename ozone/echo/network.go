package echo

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/dnecho/dnecho/internal/tcpinfo"
	"github.com/dnecho/dnecho/ozone/datanode"
)

// NetworkSample is the kernel's view of the TCP connections to one DataNode at one moment.
type NetworkSample struct {
	DataNode    datanode.DataNode // UUID and dialled address
	At          time.Time
	RTT         time.Duration // smoothed RTT (tcpi_rtt), mean over the DataNode's live connections
	RTTVar      time.Duration // tcpi_rttvar, mean
	MinRTT      time.Duration // tcpi_min_rtt, smallest
	Retransmits uint64        // total retransmitted segments to this DataNode since the session opened (monotonic)
	Conns       int           // live connections read
}

// DefaultNetworkInterval is how often WatchNetwork reads the connections when interval <= 0.
// Four readings a second resolve the per-second series the front ends report, while the cost
// stays far below a call's: a reading is one getsockopt per connection (about a microsecond),
// shared by every call of the interval (BENCHMARKS.md, "TCP_INFO sampling cost"). Reading more
// often shows little more, since the kernel's smoothed RTT moves by 1/8 of a new sample per
// ACK (docs/network.md).
const DefaultNetworkInterval = 250 * time.Millisecond

// WatchNetwork calls fn from one goroutine every interval with one sample per DataNode that has a
// live connection, until stop is called or the session closes; stop waits for the goroutine.
// Where TCP_INFO cannot be read (not Linux) fn never gets samples, and the Observer hears one
// EventNetworkUnavailable. fn must not close the session; a nil fn starts nothing.
func (s *Session) WatchNetwork(interval time.Duration, fn func([]NetworkSample)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	if interval <= 0 {
		interval = DefaultNetworkInterval
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	if !s.startBackground(func() {
		defer close(done)
		s.watchNetwork(interval, fn, quit)
	}) {
		close(done)
	}
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

func (s *Session) watchNetwork(interval time.Duration, fn func([]NetworkSample), quit <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	told := false
	for {
		select {
		case <-quit:
			return
		case <-s.ctx.Done():
			return
		case now := <-t.C:
			samples, err := s.net.sample(now)
			if err != nil && !told {
				told = true
				s.obs.emit(Event{Kind: EventNetworkUnavailable, Message: "the kernel's view of the DataNode connections " +
					"(TCP_INFO) cannot be read here: " + err.Error() + "; no network samples will be reported"})
			}
			if len(samples) > 0 {
				fn(samples)
			}
		}
	}
}

// netRegistry knows the session's live connections per DataNode (a datanode.ConnWatcher).
type netRegistry struct {
	read func(net.Conn) (tcpinfo.Info, error) // tcpinfo.Read; tests give readings of their own

	mu    sync.Mutex
	nodes map[datanode.DataNode]*netNode
}

// netNode is one DataNode's connections.
type netNode struct {
	conns map[*netConn]struct{}
	// base is the retransmissions of the DataNode's closed connections, so that the total stays
	// monotonic across re-dials.
	base uint64
}

// netConn is one live connection with its last good reading.
type netConn struct {
	c    net.Conn
	last tcpinfo.Info
}

func newNetRegistry() *netRegistry {
	return &netRegistry{read: tcpinfo.Read, nodes: map[datanode.DataNode]*netNode{}}
}

// Opened registers c; the function it returns reads c a last time and forgets it.
func (r *netRegistry) Opened(node datanode.DataNode, c net.Conn) (closed func()) {
	nc := &netConn{c: c}
	r.mu.Lock()
	n := r.nodes[node]
	if n == nil {
		n = &netNode{conns: map[*netConn]struct{}{}}
		r.nodes[node] = n
	}
	n.conns[nc] = struct{}{}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if in, err := r.read(c); err == nil {
			nc.last = in
		}
		n.base += nc.last.TotalRetrans
		delete(n.conns, nc)
	}
}

// sample reads every live connection: one sample per DataNode with a connection it could read.
// The error is ErrUnsupported's when no connection could be read for that reason.
func (r *netRegistry) sample(now time.Time) ([]NetworkSample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []NetworkSample
	var unsupported error
	for node, n := range r.nodes {
		ns := NetworkSample{DataNode: node, At: now, Retransmits: n.base}
		var rtt, rttVar time.Duration
		for nc := range n.conns {
			in, err := r.read(nc.c)
			if errors.Is(err, tcpinfo.ErrUnsupported) {
				unsupported = err
			}
			if err == nil {
				nc.last = in
				ns.Conns++
				rtt += in.RTT
				rttVar += in.RTTVar
				if in.MinRTT > 0 && (ns.MinRTT == 0 || in.MinRTT < ns.MinRTT) {
					ns.MinRTT = in.MinRTT
				}
			}
			ns.Retransmits += nc.last.TotalRetrans
		}
		if ns.Conns > 0 {
			ns.RTT = rtt / time.Duration(ns.Conns)
			ns.RTTVar = rttVar / time.Duration(ns.Conns)
			out = append(out, ns)
		}
	}
	if len(out) > 0 {
		unsupported = nil
	}
	return out, unsupported
}
