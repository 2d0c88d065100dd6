package testkit

import (
	"net"
	"sync"
	"testing"
)

// Silent is a TCP listener on 127.0.0.1 that accepts connections and never answers: a frozen
// server as a client sees it (a SIGSTOPped SCM, a KDC or a store behind a dead proxy, a
// black-holed DataNode). It closes what it accepted when the test ends.
type Silent struct {
	l        net.Listener
	accepted chan struct{}

	mu    sync.Mutex
	conns []net.Conn
}

// NewSilent listens until the test ends.
func NewSilent(t testing.TB) *Silent {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Silent{l: l, accepted: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.accept()
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

func (s *Silent) accept() {
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		if len(s.conns) == 1 {
			close(s.accepted)
		}
		s.mu.Unlock()
	}
}

// Addr is the listener's host:port.
func (s *Silent) Addr() string { return s.l.Addr().String() }

// Accepted is closed when the first connection has been accepted.
func (s *Silent) Accepted() <-chan struct{} { return s.accepted }

// Connections is how many connections it has accepted.
func (s *Silent) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
