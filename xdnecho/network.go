package xdnecho

import (
	"maps"
	"sync"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/echo"
)

// netWatches are the network watches of a test run's sessions (ozone/echo WatchNetwork): each
// session's tick becomes dnecho_tcp_rtt and dnecho_tcp_retransmits samples, pushed straight to
// the test (modules.Test.Pusher), since no VU makes them.
type netWatches struct {
	mu       sync.Mutex
	stopped  bool
	stops    map[*echo.Session]func()
	sessions []*echo.Session
}

// watch starts sess's watch unless it runs already or the watches were stopped. Its samples
// carry tags (those of the first Client of the session) and the DataNode.
func (w *netWatches) watch(sess *echo.Session, t *modules.Test, m *echometrics.Set, tags *metrics.Tags) {
	if t.Pusher == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.stops[sess] != nil {
		return
	}
	if w.stops == nil {
		w.stops = map[*echo.Session]func(){}
	}
	samples := echometrics.NewNetwork(m, tags, sess.Mode())
	w.stops[sess] = sess.WatchNetwork(echo.DefaultNetworkInterval, func(tick []echo.NetworkSample) {
		if batch := samples.Samples(tick); len(batch) > 0 {
			t.Pusher.PushSamples(batch)
		}
	})
	w.sessions = append(w.sessions, sess)
}

// stop ends every watch and refuses new ones; it waits for the watches' goroutines, so that no
// sample is pushed once it returns. It is idempotent.
func (w *netWatches) stop() {
	w.mu.Lock()
	w.stopped = true
	stops := maps.Clone(w.stops)
	w.stops = map[*echo.Session]func(){}
	w.mu.Unlock()
	for _, s := range stops {
		s()
	}
}

// StopNetwork ends the network watches of the test run's sessions: no dnecho_tcp_* sample is
// pushed once it returns, and Clients made afterwards (handleSummary's VU) start none. The end of
// the test calls it before its outputs stop; Close calls it too.
func (r *Root) StopNetwork() { r.net.stop() }

// Addrs returns the addresses of the members of the pipelines of the run's watched sessions
// (every session that made calls), as they are now, by uuid and mode: the addresses the
// per-DataNode block shows, the gRPC port for grpc calls and the Ratis port for Ratis calls.
func (r *Root) Addrs() func(uuid string, mode echo.Mode) string {
	r.net.mu.Lock()
	sessions := append([]*echo.Session(nil), r.net.sessions...)
	r.net.mu.Unlock()
	addrs := map[[2]string]string{}
	for _, s := range sessions {
		transport := s.Spec().Transport
		if transport == "" {
			transport = echo.TransportGRPC
		}
		for _, dn := range s.Members() {
			addrs[[2]string{dn.UUID, string(transport)}] = dn.Addr
		}
	}
	return func(uuid string, mode echo.Mode) string { return addrs[[2]string{uuid, string(mode.Transport())}] }
}
