package hadooprpc

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/testwait"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// A server that takes the connection and never answers costs a bounded call its quiet time: the
// connection (TCP and handshake) or the reply, whichever is missing, and the connection closes.
func TestCallWithinSilentServer(t *testing.T) {
	const quiet = 150 * time.Millisecond
	paused := newTestServer(t, ServerOptions{})
	paused.Register(echoProtocol, 1, "echo", echoHandler(nil))
	paused.Pause()
	pausedAddr := startServer(t, paused)
	tests := []struct {
		name       string
		addr       string
		opts       Options
		connecting bool
	}{
		{"raw listener", newRawServer(t).addr(), Options{}, false},
		{"paused server", pausedAddr, Options{}, false},
		// SASL needs the server's NEGOTIATE: the silence falls within the handshake, well
		// inside the (default, 20 s) connect timeout.
		{"paused server, SASL", pausedAddr, Options{Authenticator: SimpleFallback{}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, tt.addr, tt.opts)
			start := time.Now()
			var resp hadooppb.UserInformationProto
			err := c.CallWithin(testCtx(t), quiet, echoProtocol, "echo", echoMsg("x", ""), &resp)
			took := time.Since(start)
			var se *SilenceError
			if !errors.As(err, &se) || se.After != quiet || se.Connecting != tt.connecting {
				t.Fatalf("err = %v, want a SilenceError after %s (connecting %v)", err, quiet, tt.connecting)
			}
			if took < quiet {
				t.Errorf("gave up after %s, before its quiet time %s", took, quiet)
			}
			if cn := connFor(c, echoProtocol); cn != nil && !cn.isClosed() {
				t.Error("the silent connection was left open")
			}
		})
	}
}

// A reply whose bytes keep coming is not cut, however long it takes in all; only silence is.
func TestCallWithinLongAnswer(t *testing.T) {
	const quiet = time.Second
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), Options{})
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		var resp hadooppb.UserInformationProto
		done <- c.CallWithin(testCtx(t), quiet, echoProtocol, "echo", echoMsg("x", ""), &resp)
	}()
	sc := rs.accept(t)
	long := strings.Repeat("a long answer, ", 3)
	frame := mustFrame(t, responseHeader(0, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg(long, ""))
	for _, b := range frame { // one byte every quiet/20: never silent for long, long in all
		if _, err := sc.Write([]byte{b}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(quiet / 20)
	}
	if err := waitCall(t, done); err != nil {
		t.Fatalf("a reply still arriving was cut: %v", err)
	}
	if took := time.Since(start); took < 2*quiet {
		t.Fatalf("the reply took %s, less than twice the quiet time %s: nothing was tested", took, quiet)
	}
}

// A paused server holds what it is sent, answers nothing, and answers it all after Resume.
func TestServerPauseResume(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	s.Register(echoProtocol, 1, "echo", echoHandler(nil))
	addr := startServer(t, s)
	c := newTestClient(t, addr, Options{})
	if _, err := echo(testCtx(t), c, "warm", ""); err != nil {
		t.Fatal(err)
	}
	s.Pause()
	held := make(chan error, 1)
	go func() { _, err := echo(testCtx(t), c, "held", ""); held <- err }()
	fresh := newTestClient(t, addr, Options{})
	freshDone := make(chan error, 1)
	go func() { _, err := echo(testCtx(t), fresh, "new", ""); freshDone <- err }()
	// The second client's connection is accepted while paused, as a stopped process's kernel does.
	testwait.Eventually(t, testwait.Timeout, "the paused server accepting", func() bool { return s.Accepted() == 2 })
	select {
	case err := <-held:
		t.Fatalf("a paused server answered: %v", err)
	case err := <-freshDone:
		t.Fatalf("a paused server answered a new connection: %v", err)
	default:
	}
	s.Resume()
	if err := waitCall(t, held); err != nil {
		t.Errorf("held call after Resume: %v", err)
	}
	if err := waitCall(t, freshDone); err != nil {
		t.Errorf("new connection after Resume: %v", err)
	}
}

// Close ends a paused server's connections and held replies without waiting for Resume.
func TestServerCloseWhilePaused(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	s.Register(echoProtocol, 1, "echo", echoHandler(nil))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); s.Serve(l) }()
	s.Pause()
	c := newTestClient(t, l.Addr().String(), Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	go echo(ctx, c, "held", "")
	testwait.Eventually(t, testwait.Timeout, "the connection", func() bool { return s.Accepted() == 1 })
	s.Close()
	<-served
}
