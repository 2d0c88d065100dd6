package echo

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/tcpinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// readings stands in for the kernel in registry tests: the reading each raw connection gives.
type readings struct {
	mu sync.Mutex
	m  map[net.Conn]tcpinfo.Info
}

func (r *readings) set(c net.Conn, in tcpinfo.Info) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[c.(interface{ NetConn() net.Conn }).NetConn()] = in
}

func (r *readings) forget(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, c.(interface{ NetConn() net.Conn }).NetConn())
}

func (r *readings) read(c net.Conn) (tcpinfo.Info, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, ok := r.m[c]
	if !ok {
		return in, errors.New("no reading")
	}
	return in, nil
}

// dialer returns a function that opens connections to a local listener through datanode.Dialer,
// as the gRPC clients do, registered with r under node.
func dialer(t *testing.T, r *netRegistry) func(node datanode.DataNode) net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		accepted.Wait()
		for _, c := range conns {
			c.Close()
		}
	})
	accepted.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	return func(node datanode.DataNode) net.Conn {
		c, err := datanode.Dialer(node, r)(context.Background(), ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// byNode indexes samples by DataNode UUID.
func byNode(ss []NetworkSample) map[string]NetworkSample {
	m := map[string]NetworkSample{}
	for _, s := range ss {
		m[s.DataNode.UUID] = s
	}
	return m
}

func TestNetRegistryAcrossRedials(t *testing.T) {
	fake := &readings{m: map[net.Conn]tcpinfo.Info{}}
	r := newNetRegistry()
	r.read = fake.read
	dial := dialer(t, r)
	a, b := datanode.DataNode{UUID: "a", Addr: "a:1"}, datanode.DataNode{UUID: "b", Addr: "b:1"}
	ms := time.Millisecond

	a1, a2, b1 := dial(a), dial(a), dial(b)
	fake.set(a1, tcpinfo.Info{RTT: 1 * ms, RTTVar: 2 * ms, MinRTT: 500 * time.Microsecond, TotalRetrans: 3})
	fake.set(a2, tcpinfo.Info{RTT: 3 * ms, RTTVar: 4 * ms, MinRTT: 200 * time.Microsecond, TotalRetrans: 1})
	fake.set(b1, tcpinfo.Info{RTT: 7 * ms, TotalRetrans: 0})
	steps := []struct {
		name string
		do   func()
		want map[string]NetworkSample // At and DataNode.Addr not compared
	}{
		{"two conns to a: mean RTT and RTTVar, smallest MinRTT, summed retransmits", func() {},
			map[string]NetworkSample{"a": {RTT: 2 * ms, RTTVar: 3 * ms, MinRTT: 200 * time.Microsecond, Retransmits: 4, Conns: 2},
				"b": {RTT: 7 * ms, Conns: 1}}},
		{"a1 retransmits more, then closes: its last reading is kept", func() {
			fake.set(a1, tcpinfo.Info{RTT: 1 * ms, TotalRetrans: 5})
			a1.Close()
		}, map[string]NetworkSample{"a": {RTT: 3 * ms, RTTVar: 4 * ms, MinRTT: 200 * time.Microsecond, Retransmits: 6, Conns: 1},
			"b": {RTT: 7 * ms, Conns: 1}}},
		{"a2 cannot be read: not counted as live, its retransmits are", func() {
			fake.forget(a2)
		}, map[string]NetworkSample{"b": {RTT: 7 * ms, Conns: 1}}},
		{"a re-dialled (a restart): the total goes on from the closed conns'", func() {
			a2.Close()
			a3 := dial(a)
			fake.set(a3, tcpinfo.Info{RTT: 9 * ms, TotalRetrans: 2})
		}, map[string]NetworkSample{"a": {RTT: 9 * ms, Retransmits: 5 + 1 + 2, Conns: 1}, "b": {RTT: 7 * ms, Conns: 1}}},
		{"b closes: no sample for a DataNode without a live conn", func() { b1.Close() },
			map[string]NetworkSample{"a": {RTT: 9 * ms, Retransmits: 8, Conns: 1}}},
	}
	for _, st := range steps {
		st.do()
		now := time.Now()
		got, err := r.sample(now)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		m := byNode(got)
		if len(m) != len(st.want) || len(got) != len(st.want) {
			t.Errorf("%s: samples %+v, want %+v", st.name, got, st.want)
		}
		for id, w := range st.want {
			g := m[id]
			w.DataNode, w.At = g.DataNode, now
			if g != w || g.DataNode.UUID != id {
				t.Errorf("%s: %s: %+v, want %+v", st.name, id, g, w)
			}
		}
	}
}

func TestNetRegistryUnsupported(t *testing.T) {
	r := newNetRegistry()
	r.read = func(net.Conn) (tcpinfo.Info, error) { return tcpinfo.Info{}, &tcpinfo.UnsupportedError{Reason: "test"} }
	dialer(t, r)(datanode.DataNode{UUID: "a"})
	if got, err := r.sample(time.Now()); len(got) != 0 || !errors.Is(err, tcpinfo.ErrUnsupported) {
		t.Errorf("an unreadable platform: %+v %v", got, err)
	}
}

// TestNetRegistryKernel reads a real connection: what the kernel says, then nothing once closed.
func TestNetRegistryKernel(t *testing.T) {
	r := newNetRegistry()
	c := dialer(t, r)(datanode.DataNode{UUID: "a"})
	got, err := r.sample(time.Now())
	if errors.Is(err, tcpinfo.ErrUnsupported) {
		t.Skip(err)
	}
	if len(got) != 1 || got[0].Conns != 1 || got[0].RTT <= 0 || err != nil {
		t.Fatalf("a live loopback connection: %+v %v", got, err)
	}
	c.Close()
	if got, err := r.sample(time.Now()); len(got) != 0 || err != nil {
		t.Errorf("after close: %+v %v", got, err)
	}
}

// TestWatchNetwork runs calls against the emulator and waits for samples of every DataNode the
// calls went to, each with a round-trip time.
func TestWatchNetwork(t *testing.T) {
	c, dir := minitest.Start(t, minicluster.Options{})
	for name, spec := range map[string]Spec{
		"grpc to every member": {Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Target: "all", Clients: 2},
		"ratis":                {Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: TransportRatis},
	} {
		t.Run(name, func(t *testing.T) {
			sess := open(t, spec)
			want := len(c.DataNodes())
			if spec.Transport == TransportRatis {
				want = 1 // the leader
			}
			var mu sync.Mutex
			seen := map[datanode.DataNode]NetworkSample{}
			stop := sess.WatchNetwork(5*time.Millisecond, func(ss []NetworkSample) {
				mu.Lock()
				defer mu.Unlock()
				for _, s := range ss {
					if s.RTT > 0 && s.Conns > 0 && !s.At.IsZero() {
						seen[s.DataNode] = s
					}
				}
			})
			defer stop()
			for w := range uint64(2 * want) {
				if r := sess.Echo(context.Background(), w); !r.OK() {
					t.Fatalf("echo: %+v", r)
				}
			}
			testwait.Eventually(t, testwait.Timeout, "a sample of each DataNode called", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(seen) == want
			})
			stop()
			stop() // idempotent
			members := map[string]bool{}
			for _, m := range sess.Members() {
				members[m.UUID+" "+m.Addr] = true
			}
			for n, s := range seen {
				if !members[n.UUID+" "+n.Addr] {
					t.Errorf("a sample of %+v, not a member (%v): %+v", n, members, s)
				}
			}
		})
	}
}

// TestWatchNetworkEnds: the watch ends with the session, and one started after Close never runs.
func TestWatchNetworkEnds(t *testing.T) {
	_, dir := minitest.Start(t, minicluster.Options{})
	var events []Event
	sess, err := Open(context.Background(), Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1}, func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	unsupported := make(chan struct{}, 100)
	sess.net.read = func(net.Conn) (tcpinfo.Info, error) {
		unsupported <- struct{}{}
		return tcpinfo.Info{}, &tcpinfo.UnsupportedError{Reason: "test"}
	}
	if r := sess.Echo(context.Background(), 0); !r.OK() {
		t.Fatalf("echo: %+v", r)
	}
	stop := sess.WatchNetwork(time.Millisecond, func(ss []NetworkSample) { t.Errorf("samples where TCP_INFO is unsupported: %+v", ss) })
	for range 3 { // three ticks
		<-unsupported
	}
	sess.Close() // waits for the watch
	stop()
	if len(events) != 1 || events[0].Kind != EventNetworkUnavailable {
		t.Errorf("events %+v, want one EventNetworkUnavailable", events)
	}
	sess.WatchNetwork(time.Millisecond, func([]NetworkSample) { t.Error("a watch of a closed session ran") })()
}

// BenchmarkNetworkSample is one tick of WatchNetwork: reading every live connection of the
// session (here 3 DataNodes, one connection each, as one client of a 3-replica pipeline) and
// building the samples. Per call it costs this / (calls per second × interval) (BENCHMARKS.md).
func BenchmarkNetworkSample(b *testing.B) {
	r := newNetRegistry()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	for i := range 3 {
		c, err := datanode.Dialer(datanode.DataNode{UUID: string(rune('a' + i))}, r)(context.Background(), ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		defer c.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		if ss, err := r.sample(time.Now()); len(ss) != 3 || err != nil {
			b.Fatal(ss, err)
		}
	}
}
