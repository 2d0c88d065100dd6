package hadooprpc_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestConcurrentCallsOutOfOrder(t *testing.T) {
	c := newTestClient(t, echoServer(t, rpcserver.Options{}, nil), hadooprpc.Options{})
	ctx := testCtx(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	var order []int
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Early calls sleep longest, so replies come back reversed.
			sleep := fmt.Sprintf("%dms", 2*(n-i)%40)
			want := fmt.Sprintf("call-%d", i)
			got, err := echo(ctx, c, want, sleep)
			if err == nil && got != want {
				err = fmt.Errorf("call %d got %q", i, got)
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	conns := hadooprpc.Conns(c)
	if conns != 1 {
		t.Errorf("%d connections, want 1 multiplexed", conns)
	}
	inOrder := true
	for i := 1; i < len(order); i++ {
		inOrder = inOrder && order[i] > order[i-1]
	}
	if inOrder {
		t.Log("replies happened to arrive in order")
	}
}

func TestFatalFailsOutstandingCallsAndReconnects(t *testing.T) {
	g := newGate(t)
	c := newTestClient(t, echoServer(t, rpcserver.Options{}, g), hadooprpc.Options{})
	ctx := testCtx(t)
	slow := make(chan error, 3)
	for range 3 {
		go func() { _, err := echo(ctx, c, "slow", "gate"); slow <- err }()
	}
	for range 3 {
		g.WaitEntered(t) // all three calls are outstanding at the server
	}
	_, err := echo(ctx, c, "fatal", "")
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) || !re.Fatal || re.Class != "test.Boom" {
		t.Fatalf("fatal call: %v", err)
	}
	for range 3 {
		if err := <-slow; !errors.As(err, &re) || !re.Fatal {
			t.Errorf("outstanding call: %v, want the fatal RemoteError", err)
		}
	}
	if got, err := echo(ctx, c, "again", ""); err != nil || got != "again" {
		t.Fatalf("call after FATAL: %q, %v", got, err)
	}
}

func TestErrorReplyKeepsConnection(t *testing.T) {
	c := newTestClient(t, echoServer(t, rpcserver.Options{}, nil), hadooprpc.Options{})
	ctx := testCtx(t)
	echo(ctx, c, "warm", "")
	first := hadooprpc.ConnFor(c, echoProtocol)
	_, err := echo(ctx, c, "error", "")
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) || re.Fatal || re.Class != "java.io.IOException" || re.Message != "plain go error" {
		t.Fatalf("err = %#v", err)
	}
	if got, err := echo(ctx, c, "after", ""); err != nil || got != "after" || hadooprpc.ConnFor(c, echoProtocol) != first {
		t.Fatalf("after ERROR: %q %v (same conn %v)", got, err, hadooprpc.ConnFor(c, echoProtocol) == first)
	}
}

func TestCallContextCancel(t *testing.T) {
	g := newGate(t)
	c := newTestClient(t, echoServer(t, rpcserver.Options{}, g), hadooprpc.Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	abandoned := make(chan error, 1)
	go func() { _, err := echo(ctx, c, "slow", "gate"); abandoned <- err }()
	g.WaitEntered(t)
	cancel()
	if err := waitCall(t, abandoned); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context canceled", err)
	}
	// The connection survives; the late reply to the abandoned call is dropped.
	got, err := echo(testCtx(t), c, "next", "")
	if err != nil || got != "next" {
		t.Fatalf("next call: %q %v", got, err)
	}
	cn := hadooprpc.ConnFor(c, echoProtocol)
	before := cn.LastUse()
	g.Open() // the server now answers the abandoned call
	testwait.Eventually(t, testwait.Timeout, "the late reply", func() bool { return cn.LastUse().After(before) })
	if got, err := echo(testCtx(t), c, "later", ""); err != nil || got != "later" {
		t.Fatalf("after late reply: %q %v", got, err)
	}
}

func TestIdleClose(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{IdleTimeout: 50 * time.Millisecond})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(hadooppb.UserInformationProto))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	sc.Write(mustFrame(t, wire.ResponseHeader(0, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg("x", "")))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	expectEOF(t, sc) // the client hangs up once idle
	// The next call dials again.
	done = asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(hadooppb.UserInformationProto))
	sc2 := rs.accept(t)
	expectBytes(t, sc2, "new session", vec.Bytes(vec.PreambleSimple, vec.Context))
	sc2.Close()
	var ce *hadooprpc.ConnError
	if err := waitCall(t, done); !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *ConnError", err)
	}
}

func TestConnectionErrors(t *testing.T) {
	ctx := testCtx(t)
	closedPort := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}()
	hang := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	tests := []struct {
		name string
		addr string
		opts hadooprpc.Options
	}{
		{"refused", closedPort, hadooprpc.Options{}},
		{"connect timeout", "192.0.2.1:9860", hadooprpc.Options{ConnectTimeout: 50 * time.Millisecond, Dial: hang}},
	}
	for _, tt := range tests {
		c := newTestClient(t, tt.addr, tt.opts)
		start := time.Now()
		_, err := echo(ctx, c, "x", "")
		var ce *hadooprpc.ConnError
		if !errors.As(err, &ce) || ce.Op != "dial" {
			t.Errorf("%s: err = %v, want dial *ConnError", tt.name, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: took %v", tt.name, time.Since(start))
		}
	}
}

func TestServerClosesConnection(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(hadooppb.UserInformationProto))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	sc.Close()
	var ce *hadooprpc.ConnError
	if err := waitCall(t, done); !errors.As(err, &ce) || ce.Op != "read" {
		t.Fatalf("err = %v, want read *ConnError", err)
	}
}

func TestBadResponses(t *testing.T) {
	otherID := append([]byte{}, testClientID...)
	otherID[0] = 0
	tests := []struct {
		name  string
		reply func(t *testing.T) []byte
	}{
		{"length zero", func(*testing.T) []byte { return []byte{0, 0, 0, 0} }},
		{"too long", func(*testing.T) []byte { return []byte{0x7f, 0, 0, 0} }},
		{"trailing bytes", func(t *testing.T) []byte {
			f := mustFrame(t, wire.ResponseHeader(0, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg("x", ""))
			f[3]++
			return append(f, 0)
		}},
		{"other client id", func(t *testing.T) []byte {
			return mustFrame(t, wire.ResponseHeader(0, 0, otherID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg("x", ""))
		}},
		{"body does not decode", func(t *testing.T) []byte {
			f := mustFrame(t, wire.ResponseHeader(0, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS))
			f[3] += 2
			return append(f, 1, 0xff)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRawServer(t)
			c := newTestClient(t, rs.addr(), hadooprpc.Options{MaxResponseLength: 1 << 20})
			done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(hadooppb.UserInformationProto))
			sc := rs.accept(t)
			expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
			sc.Write(tt.reply(t))
			if err := waitCall(t, done); !errors.Is(err, hadooprpc.ErrBadResponse) {
				t.Fatalf("err = %v, want ErrBadResponse", err)
			}
		})
	}
}

func TestLegacyFatalReply(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(hadooppb.UserInformationProto))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	b = wire.AppendWritableString(b, "org.apache.hadoop.ipc.RPC$VersionMismatch")
	sc.Write(wire.AppendWritableString(b, "Server IPC version 7 cannot communicate with client version 9"))
	var re *hadooprpc.RemoteError
	if err := waitCall(t, done); !errors.As(err, &re) || !re.Fatal || re.SimpleName() != "RPC$VersionMismatch" {
		t.Fatalf("err = %v", err)
	}
}

func TestAgainstKerberosOnlyServer(t *testing.T) {
	addr := echoServer(t, rpcserver.Options{KerberosOnly: true}, nil)
	ctx := testCtx(t)

	_, err := echo(ctx, newTestClient(t, addr, hadooprpc.Options{}), "x", "")
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) || !re.Fatal || re.SimpleName() != "AccessControlException" ||
		re.Message != "SIMPLE authentication is not enabled.  Available:[KERBEROS]" {
		t.Fatalf("SIMPLE client: %v", err)
	}
	if _, err := echo(ctx, newTestClient(t, addr, hadooprpc.Options{Authenticator: hadooprpc.SimpleFallback{}}), "x", ""); !errors.Is(err, hadooprpc.ErrSASLRequired) {
		t.Fatalf("SASL client: %v, want ErrSASLRequired", err)
	}
}

func TestSASLFallbackAndUser(t *testing.T) {
	addr := echoServer(t, rpcserver.Options{}, nil)
	c := newTestClient(t, addr, hadooprpc.Options{Authenticator: hadooprpc.SimpleFallback{}, User: "alice"})
	if got, err := echo(testCtx(t), c, "whoami", ""); err != nil || got != "alice" {
		t.Fatalf("whoami = %q, %v", got, err)
	}
}

func TestClientClose(t *testing.T) {
	g := newGate(t)
	c := newTestClient(t, echoServer(t, rpcserver.Options{}, g), hadooprpc.Options{})
	ctx := testCtx(t)
	pending := make(chan error, 1)
	go func() { _, err := echo(ctx, c, "slow", "gate"); pending <- err }()
	g.WaitEntered(t) // the call is outstanding
	c.Close()
	if err := waitCall(t, pending); !errors.Is(err, hadooprpc.ErrClosed) {
		t.Errorf("pending call: %v, want ErrClosed", err)
	}
	if _, err := echo(ctx, c, "x", ""); !errors.Is(err, hadooprpc.ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, o := range []hadooprpc.Options{
		{ConnectTimeout: -1}, {PingInterval: -1}, {IdleTimeout: -1}, {MaxResponseLength: -1}, {ClientID: []byte{1}},
	} {
		if _, err := hadooprpc.NewClient("x:1", o); err == nil {
			t.Errorf("NewClient(%+v) accepted", o)
		}
	}
}

func TestHandshakeTimeout(t *testing.T) {
	rs := newRawServer(t) // accepts, never answers the SASL NEGOTIATE
	c := newTestClient(t, rs.addr(), hadooprpc.Options{Authenticator: hadooprpc.SimpleFallback{}, ConnectTimeout: 50 * time.Millisecond})
	_, err := echo(testCtx(t), c, "x", "")
	var ce *hadooprpc.ConnError
	if !errors.As(err, &ce) || ce.Op != "handshake" {
		t.Fatalf("err = %v, want handshake *ConnError", err)
	}
}

// Replies in reverse order reach the right callers.
func TestClientMatchesRepliesByCallID(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	ctx := testCtx(t)
	readFrame := func(sc net.Conn) {
		t.Helper()
		var lb [4]byte
		if _, err := io.ReadFull(sc, lb[:]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(sc, make([]byte, binary.BigEndian.Uint32(lb[:]))); err != nil {
			t.Fatal(err)
		}
	}
	var results []<-chan error
	var resps []*hadooppb.UserInformationProto
	var sc net.Conn
	for i := range 3 { // callIds 0, 1, 2
		r := new(hadooppb.UserInformationProto)
		resps = append(resps, r)
		results = append(results, asyncCall(ctx, c, echoMsg("x", ""), r))
		if i == 0 {
			sc = rs.accept(t)
			expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context))
		}
		readFrame(sc)
	}
	for _, id := range []int32{2, 0, 1} {
		sc.Write(mustFrame(t, wire.ResponseHeader(id, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), echoMsg(fmt.Sprintf("reply-%d", id), "")))
	}
	for i, ch := range results {
		if err := waitCall(t, ch); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for i := range 3 {
		if got := resps[i].GetEffectiveUser(); got != fmt.Sprintf("reply-%d", i) {
			t.Errorf("call %d got %q", i, got)
		}
	}
}
