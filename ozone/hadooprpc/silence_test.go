package hadooprpc_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

// A server that takes the connection and never answers costs a bounded call its quiet time: the
// connection (TCP and handshake) or the reply, whichever is missing, and the connection closes.
func TestCallWithinSilentServer(t *testing.T) {
	const quiet = 150 * time.Millisecond
	paused := rpcservertest.NewServer(t, rpcserver.Options{})
	paused.Register(echoProtocol, 1, "echo", rpcservertest.EchoHandler(nil))
	paused.Pause()
	pausedAddr := rpcservertest.Serve(t, paused)
	tests := []struct {
		name       string
		addr       string
		opts       hadooprpc.Options
		connecting bool
	}{
		{"raw listener", newRawServer(t).addr(), hadooprpc.Options{}, false},
		{"paused server", pausedAddr, hadooprpc.Options{}, false},
		// SASL needs the server's NEGOTIATE: the silence falls within the handshake, well
		// inside the (default, 20 s) connect timeout.
		{"paused server, SASL", pausedAddr, hadooprpc.Options{Authenticator: hadooprpc.SimpleFallback{}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, tt.addr, tt.opts)
			start := time.Now()
			var resp hadooppb.UserInformationProto
			err := c.CallWithin(testCtx(t), quiet, echoProtocol, "echo", echoMsg("x", ""), &resp)
			took := time.Since(start)
			var se *hadooprpc.SilenceError
			if !errors.As(err, &se) || se.After != quiet || se.Connecting != tt.connecting {
				t.Fatalf("err = %v, want a SilenceError after %s (connecting %v)", err, quiet, tt.connecting)
			}
			if took < quiet {
				t.Errorf("gave up after %s, before its quiet time %s", took, quiet)
			}
			if cn := hadooprpc.ConnFor(c, echoProtocol); cn != nil && !cn.Closed() {
				t.Error("the silent connection was left open")
			}
		})
	}
}

// A reply whose bytes keep coming is not cut, however long it takes in all; only silence is.
func TestCallWithinLongAnswer(t *testing.T) {
	const quiet = time.Second
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		var resp hadooppb.UserInformationProto
		done <- c.CallWithin(testCtx(t), quiet, echoProtocol, "echo", echoMsg("x", ""), &resp)
	}()
	sc := rs.accept(t)
	long := strings.Repeat("a long answer, ", 3)
	frame := mustFrame(t, wire.ResponseHeader(0, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg(long, ""))
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
