package rpcserver_test

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testClientID is the client id of the vectors, which the hand-made frames use too.
var testClientID = vec.ClientID()

// dialRaw connects to a server and returns the raw socket.
func dialRaw(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readReply reads one response frame from a raw connection: its header and, for SUCCESS, the
// body's bytes.
func readReply(t testing.TB, c net.Conn) (*hadooppb.RpcResponseHeaderProto, []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var lenBuf [4]byte
	if _, err := io.ReadFull(c, lenBuf[:]); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	frame, err := wire.ReadN(c, int(binary.BigEndian.Uint32(lenBuf[:])))
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	hb, rest, err := wire.ConsumeDelimited(frame)
	h := new(hadooppb.RpcResponseHeaderProto)
	if err == nil {
		err = proto.Unmarshal(hb, h)
	}
	if err != nil {
		t.Fatalf("reply header: %v", err)
	}
	if h.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS {
		return h, nil
	}
	body, _, err := wire.ConsumeDelimited(rest)
	if err != nil {
		t.Fatalf("reply body: %v", err)
	}
	return h, body
}

// Frame builders for hand-made sessions.
func ctxFrame(t testing.TB) []byte {
	user, proto := vec.User, rpcservertest.EchoProtocol
	return rpcservertest.Frame(t, wire.RequestHeader(wire.CallIDContext, testClientID, -1),
		&hadooppb.IpcConnectionContextProto{UserInfo: &hadooppb.UserInformationProto{EffectiveUser: &user}, Protocol: &proto})
}

func callFrame(t testing.TB, h *hadooppb.RpcRequestHeaderProto, protocol string, version uint64, method string, req proto.Message) []byte {
	return rpcservertest.Frame(t, h, &hadooppb.RequestHeaderProto{
		MethodName: &method, DeclaringClassProtocolName: &protocol, ClientProtocolVersion: &version}, req)
}

func echoCall(t testing.TB, id int32) []byte {
	return callFrame(t, wire.RequestHeader(id, testClientID, 0), rpcservertest.EchoProtocol, 1, "echo", rpcservertest.EchoMsg("hi", ""))
}

// withPayload replaces the last delimited message of a call frame by raw bytes.
func withPayload(t testing.TB, frame, payload []byte) []byte {
	t.Helper()
	rest := frame[4:]
	for range 2 { // RpcRequestHeaderProto, RequestHeaderProto
		_, r, err := wire.ConsumeDelimited(rest)
		if err != nil {
			t.Fatal(err)
		}
		rest = r
	}
	out := append(append([]byte{}, frame[:len(frame)-len(rest)]...), payload...)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// newClient is a client of addr that the test closes.
func newClient(t testing.TB, addr string) *hadooprpc.Client {
	t.Helper()
	c, err := hadooprpc.NewClient(addr, hadooprpc.Options{ClientID: testClientID, User: vec.User})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
