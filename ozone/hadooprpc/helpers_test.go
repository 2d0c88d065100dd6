package hadooprpc_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/scmpb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const echoProtocol = rpcservertest.EchoProtocol

var (
	testClientID = vec.ClientID()
	testCtx      = rpcservertest.Ctx
	mustFrame    = rpcservertest.Frame
	echoMsg      = rpcservertest.EchoMsg
	echo         = rpcservertest.Echo
	echoServer   = rpcservertest.EchoServer
	newGate      = rpcservertest.NewGate
	waitCall     = rpcservertest.Wait
	expectBytes  = rpcservertest.ExpectBytes
	expectEOF    = rpcservertest.ExpectEOF
)

// rawServer accepts connections for tests that speak bytes by hand.
type rawServer struct {
	l     net.Listener
	conns chan net.Conn
}

func newRawServer(t testing.TB) *rawServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs := &rawServer{l: l, conns: make(chan net.Conn, 8)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			rs.conns <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		close(rs.conns)
		for c := range rs.conns {
			c.Close()
		}
	})
	return rs
}

func (rs *rawServer) addr() string { return rs.l.Addr().String() }

func (rs *rawServer) accept(t testing.TB) net.Conn {
	t.Helper()
	select {
	case c := <-rs.conns:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no connection")
		return nil
	}
}

func newTestClient(t testing.TB, addr string, opts hadooprpc.Options) *hadooprpc.Client {
	t.Helper()
	if opts.ClientID == nil {
		opts.ClientID = testClientID
	}
	if opts.User == "" {
		opts.User = vec.User
	}
	c, err := hadooprpc.NewClient(addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// wrapper decodes an SCM request wrapper vector.
func wrapper(t testing.TB, hexMsg string) *scmpb.ScmContainerLocationRequest {
	t.Helper()
	m := new(scmpb.ScmContainerLocationRequest)
	if err := proto.Unmarshal(vec.Bytes(hexMsg), m); err != nil {
		t.Fatal(err)
	}
	return m
}

// asyncCall runs one SCM Call in a goroutine and returns its result channel.
func asyncCall(ctx context.Context, c *hadooprpc.Client, req, resp proto.Message) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- c.Call(ctx, vec.Protocol, "submitRequest", req, resp) }()
	return ch
}
