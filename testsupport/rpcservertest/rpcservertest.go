// Package rpcservertest is what the tests of both ends of a Hadoop RPC connection share: a
// scripted echo server on minicluster/rpcserver, a gate that holds its calls until the test lets
// them go, and the raw-socket checks of tests that speak bytes by hand.
package rpcservertest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// EchoProtocol is the protocol of the echo server (version 1, method "echo").
const EchoProtocol = "test.EchoProtocol"

// EchoMsg builds the echo request: effectiveUser is echoed back; realUser optionally holds a Go
// duration the handler sleeps first, or "gate" to hold the call at the server's gate.
func EchoMsg(text, sleep string) *hadooppb.UserInformationProto {
	m := &hadooppb.UserInformationProto{EffectiveUser: &text}
	if sleep != "" {
		m.RealUser = &sleep
	}
	return m
}

// EchoHandler answers with the request. It honours EchoMsg's sleep and gate, and the texts
// "fatal" (a FATAL test.Boom reply), "error" (a plain Go error) and "whoami" (the caller's user).
func EchoHandler(g *Gate) rpcserver.Handler {
	return func(ctx context.Context, call rpcserver.CallInfo, req []byte) (proto.Message, error) {
		var m hadooppb.UserInformationProto
		if err := rpcserver.UnmarshalRequest(req, &m); err != nil {
			return nil, err
		}
		if err := wait(ctx, g, m.GetRealUser()); err != nil {
			return nil, err
		}
		switch m.GetEffectiveUser() {
		case "fatal":
			return nil, &hadooprpc.RemoteError{Class: "test.Boom", Message: "boom", Fatal: true}
		case "error":
			return nil, errors.New("plain go error")
		case "whoami":
			return EchoMsg(call.User, ""), nil
		}
		return &m, nil
	}
}

// wait holds a call at g ("gate") or for a Go duration; anything else does not wait.
func wait(ctx context.Context, g *Gate, sleep string) error {
	if sleep == "gate" {
		return g.hold(ctx)
	}
	d, err := time.ParseDuration(sleep)
	if err != nil {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// EchoServer starts a server with opts serving EchoHandler(g) until the test ends and returns
// its address.
func EchoServer(tb testing.TB, opts rpcserver.Options, g *Gate) string {
	tb.Helper()
	s := NewServer(tb, opts)
	s.Register(EchoProtocol, 1, "echo", EchoHandler(g))
	return Serve(tb, s)
}

// Echo calls the echo server through c and returns the echoed text.
func Echo(ctx context.Context, c *hadooprpc.Client, text, sleep string) (string, error) {
	var resp hadooppb.UserInformationProto
	err := c.Call(ctx, EchoProtocol, "echo", EchoMsg(text, sleep), &resp)
	return resp.GetEffectiveUser(), err
}

// Wait returns what a call running in a goroutine sent on ch, failing the test when it does not
// return within five seconds.
func Wait(tb testing.TB, ch <-chan error) error {
	tb.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		tb.Fatal("call did not return")
		return nil
	}
}

// NewServer is rpcserver.New that fails the test on an error.
func NewServer(tb testing.TB, opts rpcserver.Options) *rpcserver.Server {
	tb.Helper()
	s, err := rpcserver.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Serve serves s on a loopback port until the test ends and returns the address.
func Serve(tb testing.TB, s *rpcserver.Server) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(l)
	}()
	tb.Cleanup(func() {
		s.Close()
		<-done
	})
	return l.Addr().String()
}

// Gate holds the calls that ask for it at the server until the test opens it, so tests order
// "the server has the call" and "the server answers" without sleeping.
type Gate struct {
	entered  chan struct{}
	released chan struct{}
	once     sync.Once
}

// NewGate returns a closed gate that opens at the end of the test at the latest.
func NewGate(tb testing.TB) *Gate {
	g := &Gate{entered: make(chan struct{}, 16), released: make(chan struct{})}
	tb.Cleanup(g.Open)
	return g
}

// hold is called by the handler: it reports the call and waits for the gate to open.
func (g *Gate) hold(ctx context.Context) error {
	g.entered <- struct{}{}
	select {
	case <-g.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitEntered waits until one more call is held at the gate.
func (g *Gate) WaitEntered(tb testing.TB) {
	tb.Helper()
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		tb.Fatal("no call reached the server")
	}
}

// Open lets every held call, and every later one, through.
func (g *Gate) Open() { g.once.Do(func() { close(g.released) }) }

// Ctx is a context that ends with the test, bounded so a hang fails fast.
func Ctx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// Frame is wire.AppendFrame of msgs that fails the test on an error.
func Frame(tb testing.TB, msgs ...proto.Message) []byte {
	tb.Helper()
	b, err := wire.AppendFrame(nil, msgs...)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// ExpectBytes reads len(want) bytes from c and compares them.
func ExpectBytes(tb testing.TB, c net.Conn, what string, want []byte) {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		tb.Fatalf("%s: read %d bytes: %v (got %x)", what, len(want), err, got)
	}
	if !bytes.Equal(got, want) {
		tb.Fatalf("%s mismatch:\n got %x\nwant %x", what, got, want)
	}
}

// ExpectEOF checks that the peer closes c.
func ExpectEOF(tb testing.TB, c net.Conn) {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	if n, err := c.Read(b[:]); err == nil {
		tb.Fatalf("expected close, read %d more bytes (%x)", n, b[:n])
	}
}
