package datanode

import (
	"context"
	"net"
	"sync"
	"syscall"
	"testing"
)

// watcher records what a ConnWatcher hears.
type watcher struct {
	mu      sync.Mutex
	open    map[net.Conn]DataNode
	closes  int
	wrapped int // connections given other than as *net.TCPConn
}

func (w *watcher) Opened(node DataNode, c net.Conn) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := c.(*net.TCPConn); !ok {
		w.wrapped++
	}
	w.open[c] = node
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.open, c)
		w.closes++
	}
}

func (w *watcher) live() (n, closes int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.open), w.closes
}

// TestConnsWatched: a client with Options.Conns reports each member's connection under the
// member's DataNode, and its closing when the client closes; the calls work as without.
func TestConnsWatched(t *testing.T) {
	dns := startDNs(t, holding(3)...)
	w := &watcher{open: map[net.Conn]DataNode{}}
	c := newClient(t, pipelineOf(dns...), Options{Target: TargetAll, Conns: w})
	for range 3 {
		if _, err := echo(t, c, Request{ContainerID: 1, ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
	}
	w.mu.Lock()
	if w.wrapped > 0 {
		t.Errorf("%d connections reported wrapped, not as *net.TCPConn", w.wrapped)
	}
	seen := map[DataNode]bool{}
	for _, n := range w.open {
		seen[n] = true
	}
	w.mu.Unlock()
	for _, m := range c.Members() {
		if !seen[m] {
			t.Errorf("no connection reported for %+v (reported: %v)", m, seen)
		}
	}
	c.Close()
	if n, closes := w.live(); n != 0 || closes != 3 {
		t.Errorf("after Close: %d connections open, %d closes reported; want 0 and 3", n, closes)
	}
}

// TestDialerConn: the wrapper closes its watcher once, and leaves the socket reachable.
func TestDialerConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	w := &watcher{open: map[net.Conn]DataNode{}}
	c, err := Dialer(DataNode{UUID: "a"}, w)(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(interface{ NetConn() net.Conn }).NetConn().(*net.TCPConn); !ok {
		t.Errorf("NetConn of %T", c)
	}
	if _, err := c.(syscall.Conn).SyscallConn(); err != nil {
		t.Errorf("SyscallConn: %v", err)
	}
	c.Close()
	c.Close()
	if n, closes := w.live(); n != 0 || closes != 1 {
		t.Errorf("closed twice: %d open, %d closes reported; want 0 and 1", n, closes)
	}
	if _, err := Dialer(DataNode{}, w)(context.Background(), "127.0.0.1:0"); err == nil {
		t.Error("dialling port 0 succeeded")
	}
	if n, _ := w.live(); n != 0 {
		t.Errorf("a failed dial was reported")
	}
}

// BenchmarkEchoWatched is BenchmarkEcho's per-request mode through the watched dialer: what the
// wrapper around the connection costs a call (compare with BenchmarkEcho/per-request).
func BenchmarkEchoWatched(b *testing.B) {
	dns := startDNs(b, holding(1)...)
	c := newClient(b, pipelineOf(dns...), Options{Conns: &watcher{open: map[net.Conn]DataNode{}}})
	p, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	measure(b, func() {
		if _, err := c.Echo(ctx, p); err != nil {
			b.Fatal(err)
		}
	})
}
