package stream

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// closedAddr is a loopback address nobody listens on (for now).
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestBeginWaitsWhileHeld: the aggregator starts long after DialTimeout, but while the run waits
// to be started Begin keeps trying; once connected it sends the token, then the Hello.
func TestBeginWaitsWhileHeld(t *testing.T) {
	addr := closedAddr(t)
	lnc := make(chan net.Listener, 1)
	var calls atomic.Int32
	hold := func() bool {
		// Each refused attempt is followed by a pause of redialPause, far above DialTimeout.
		if calls.Add(1) == 3 {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				t.Error(err)
			}
			lnc <- ln
		}
		return true
	}
	s := New(Options{Addr: addr, DialTimeout: time.Millisecond, Token: "s3cret"})
	if err := s.Begin(context.Background(), wire.Hello{Instance: "late"}, nil, hold); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	ln := <-lnc
	defer ln.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	typ, p, err := wire.ReadFrame(r)
	if err != nil || typ != wire.FrameAuth || string(p) != "s3cret" {
		t.Errorf("first frame %q %q %v, want the token", typ, p, err)
	}
	if typ, p, err = wire.ReadFrame(r); err != nil || typ != wire.FrameHello || !strings.Contains(string(p), `"late"`) {
		t.Errorf("second frame %q %q %v, want the hello", typ, p, err)
	}
	conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Finish(ctx, wire.Final{}); err == nil {
		t.Error("Finish without a verdict succeeded")
	}
}

// TestBeginGivesUpAfterStart: once the run is started, Begin tries for DialTimeout only.
func TestBeginGivesUpAfterStart(t *testing.T) {
	addr := closedAddr(t)
	s := New(Options{Addr: addr, DialTimeout: 300 * time.Millisecond})
	err := s.Begin(context.Background(), wire.Hello{}, nil, func() bool { return false })
	if err == nil || !strings.Contains(err.Error(), "not reachable within 300ms") {
		t.Fatalf("Begin: %v, want not reachable within 300ms", err)
	}
}
