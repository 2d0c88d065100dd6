package hadooprpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const scmProtocol = "org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol"

var testClientID = []byte{0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf}

// unhex decodes hex written with spaces and line breaks, as in docs/hadoop-rpc.md#test-vectors.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return b
}

// testCtx is a context that ends with the test, bounded so a hang fails fast.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

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

// expectBytes reads len(want) bytes from c and compares them.
func expectBytes(t testing.TB, c net.Conn, what string, want []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("%s: read %d bytes: %v (got %x)", what, len(want), err, got)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s mismatch:\n got %x\nwant %x", what, got, want)
	}
}

// expectEOF checks that the peer closes c.
func expectEOF(t testing.TB, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	if n, err := c.Read(b[:]); err == nil {
		t.Fatalf("expected close, read %d more bytes (%x)", n, b[:n])
	}
}

// dialRaw connects to a Server and returns the raw socket.
func dialRaw(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readReply reads one response frame from a raw connection.
func readReply(t testing.TB, c net.Conn) *response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r, err := readResponse(c, DefaultMaxDataLength, false)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return r
}

// startServer serves s on a loopback port until the test ends.
func startServer(t testing.TB, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(l)
	}()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	return l.Addr().String()
}

func newTestServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTestClient(t testing.TB, addr string, opts Options) *Client {
	t.Helper()
	if opts.ClientID == nil {
		opts.ClientID = testClientID
	}
	if opts.User == "" {
		opts.User = "hadoop"
	}
	c, err := NewClient(addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustFrame(t testing.TB, msgs ...proto.Message) []byte {
	t.Helper()
	b, err := appendFrame(nil, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gate holds the calls that ask for it at the server until the test opens it, so tests order
// "the server has the call" and "the server answers" without sleeping.
type gate struct {
	entered  chan struct{}
	released chan struct{}
	once     sync.Once
}

// newGate returns a closed gate that opens at the end of the test at the latest.
func newGate(t testing.TB) *gate {
	g := &gate{entered: make(chan struct{}, 16), released: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

// hold is called by the handler: it reports the call and waits for the gate to open.
func (g *gate) hold(ctx context.Context) error {
	g.entered <- struct{}{}
	select {
	case <-g.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitEntered waits until one more call is held at the gate.
func (g *gate) waitEntered(t testing.TB) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("no call reached the server")
	}
}

// open lets every held call, and every later one, through.
func (g *gate) open() { g.once.Do(func() { close(g.released) }) }

// lastUse is when the connection last sent a call or received a reply, even one it dropped.
func lastUse(cn *conn) time.Time {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.lastUse
}
