package hadooprpc

import (
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hadooppb"
)

// Frame builders for hand-made sessions.
func ctxFrame(t testing.TB) []byte {
	user, proto := "hadoop", echoProtocol
	return mustFrame(t, requestHeader(callIDContext, testClientID, -1),
		&hadooppb.IpcConnectionContextProto{UserInfo: &hadooppb.UserInformationProto{EffectiveUser: &user}, Protocol: &proto})
}

func callFrame(t testing.TB, h *hadooppb.RpcRequestHeaderProto, protocol string, version uint64, method string, req proto.Message) []byte {
	return mustFrame(t, h, &hadooppb.RequestHeaderProto{
		MethodName: &method, DeclaringClassProtocolName: &protocol, ClientProtocolVersion: &version}, req)
}

func echoCall(t testing.TB, id int32) []byte {
	return callFrame(t, requestHeader(id, testClientID, 0), echoProtocol, 1, "echo", echoMsg("hi", ""))
}

func TestServerRejects(t *testing.T) {
	simple := func(t testing.TB) []byte { return unhex(t, vecPreambleSimple) }
	sasl := func(t testing.TB) []byte { return unhex(t, vecPreambleSASL) }
	raw := func(b ...byte) func(testing.TB) []byte { return func(testing.TB) []byte { return b } }
	noOp := requestHeader(0, testClientID, 0)
	noOp.RpcOp = nil
	contOp := requestHeader(0, testClientID, 0)
	contOp.RpcOp = hadooppb.RpcRequestHeaderProto_RPC_CONTINUATION_PACKET.Enum()
	noKind := requestHeader(0, testClientID, 0)
	noKind.RpcKind = nil
	writable := requestHeader(0, testClientID, 0)
	writable.RpcKind = hadooppb.RpcKindProto_RPC_WRITABLE.Enum()

	type reply struct {
		status hadooppb.RpcResponseHeaderProto_RpcStatusProto
		callID int32
		detail ErrorCode
		class  string // simple name
		msg    string // prefix
	}
	fatal := func(id int32, d ErrorCode, class, msg string) *reply {
		return &reply{hadooppb.RpcResponseHeaderProto_FATAL, id, d, class, msg}
	}
	errorReply := func(d ErrorCode, class, msg string) *reply {
		return &reply{hadooppb.RpcResponseHeaderProto_ERROR, 0, d, class, msg}
	}
	tests := []struct {
		name   string
		send   []func(testing.TB) []byte
		want   *reply // nil: no reply expected
		closes bool
	}{
		{"bad magic", []func(testing.TB) []byte{raw('h', 'r', 'p', 'x', 9, 0, 0)},
			fatal(-1, FatalVersionMismatch, "RPC$VersionMismatch", "Server IPC version 9 cannot communicate with client version 9"), true},
		{"newer version", []func(testing.TB) []byte{raw('h', 'r', 'p', 'c', 10, 0, 0)},
			fatal(-1, FatalVersionMismatch, "RPC$VersionMismatch", "Server IPC version 9 cannot communicate with client version 10"), true},
		{"unknown auth", []func(testing.TB) []byte{raw('h', 'r', 'p', 'c', 9, 0, 0x50)},
			fatal(-1, FatalUnauthorized, "IpcException", "Unknown auth protocol:80"), true},
		{"call before context", []func(testing.TB) []byte{simple, func(t testing.TB) []byte { return echoCall(t, 0) }},
			fatal(0, FatalInvalidRPCHeader, "RpcServerException", "Connection context not established"), true},
		{"second context", []func(testing.TB) []byte{simple, ctxFrame, ctxFrame},
			fatal(-3, FatalInvalidRPCHeader, "RpcServerException", "Connection context already processed"), true},
		{"context during SASL", []func(testing.TB) []byte{sasl, ctxFrame},
			fatal(-3, FatalInvalidRPCHeader, "RpcServerException", "Connection header sent during SASL negotiation"), true},
		{"SASL not requested", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return unhex(t, vecSASLNegotiate) }},
			fatal(-33, FatalInvalidRPCHeader, "RpcServerException", "SASL protocol not requested by client"), true},
		{"unknown out of band", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return mustFrame(t, requestHeader(-7, testClientID, -1)) }},
			fatal(-7, FatalInvalidRPCHeader, "RpcServerException", "Unknown out of band call #-7"), true},
		{"no rpc op", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return mustFrame(t, noOp) }},
			fatal(0, FatalInvalidRPCHeader, "RpcServerException", " IPC Server: No rpc op in rpcRequestHeader"), true},
		{"continuation packet", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return mustFrame(t, contOp) }},
			fatal(0, FatalInvalidRPCHeader, "RpcServerException", "IPC Server does not implement rpc header operationRPC_CONTINUATION_PACKET"), true},
		{"no rpc kind", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return mustFrame(t, noKind) }},
			fatal(0, FatalInvalidRPCHeader, "RpcServerException", " IPC Server: No rpc kind in rpcRequestHeader"), true},
		{"writable rpc kind", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return callFrame(t, writable, echoProtocol, 1, "echo", echoMsg("x", "")) }},
			fatal(0, FatalInvalidRPCHeader, "RpcServerException", "Unknown rpc kind in rpc headerRPC_WRITABLE"), true},
		{"header does not decode", []func(testing.TB) []byte{simple, ctxFrame, raw(0, 0, 0, 2, 1, 0xff)},
			fatal(-1, FatalDeserializingRequest, "RpcServerException", "Error decoding RpcRequestHeaderProto: "), true},
		{"request does not decode", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return withPayload(t, echoCall(t, 0), []byte{2, 0x0a, 0x05}) // a string field cut short
		}}, fatal(0, FatalDeserializingRequest, "RpcServerException", "IPC server unable to read call parameters: "), true},
		{"request missing", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return withPayload(t, echoCall(t, 0), []byte{9, 0x0a})
		}}, fatal(0, FatalDeserializingRequest, "RpcServerException", "IPC server unable to read call parameters: "), true},
		{"unknown protocol", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, requestHeader(0, testClientID, 0), "no.Such", 1, "echo", echoMsg("x", ""))
		}}, errorReply(ErrorNoSuchProtocol, "RpcNoSuchProtocolException", "Unknown protocol: no.Such"), false},
		{"version mismatch", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, requestHeader(0, testClientID, 0), echoProtocol, 2, "echo", echoMsg("x", ""))
		}}, errorReply(ErrorRPCServer, "RPC$VersionMismatch", "Protocol test.EchoProtocol version mismatch. (client = 2, server = 1)"), false},
		{"unknown method", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, requestHeader(0, testClientID, 0), echoProtocol, 1, "nope", echoMsg("x", ""))
		}}, errorReply(ErrorNoSuchMethod, "RpcNoSuchMethodException", "Unknown method nope called on test.EchoProtocol protocol."), false},
		{"oversized frame", []func(testing.TB) []byte{simple, ctxFrame, raw(0, 0, 0x10, 1)}, nil, true},
		{"negative length", []func(testing.TB) []byte{simple, ctxFrame, raw(0xff, 0, 0, 0)}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := echoServer(t, ServerOptions{MaxDataLength: 4096}, nil)
			c := dialRaw(t, addr)
			for _, f := range tt.send {
				c.Write(f(t))
			}
			if tt.want != nil {
				r := readReply(t, c)
				h := r.header
				if h.GetStatus() != tt.want.status || int32(h.GetCallId()) != tt.want.callID || h.GetErrorDetail() != tt.want.detail ||
					!strings.HasPrefix(h.GetExceptionClassName(), ipcPackage) && tt.want.class != "AccessControlException" ||
					SimpleClassName(h.GetExceptionClassName()) != tt.want.class || !strings.HasPrefix(h.GetErrorMsg(), tt.want.msg) {
					t.Fatalf("reply %v", h)
				}
				if h.GetServerIpcVersionNum() != 9 {
					t.Errorf("serverIpcVersionNum = %d", h.GetServerIpcVersionNum())
				}
			}
			if tt.closes {
				expectEOF(t, c)
				return
			}
			// The connection is still usable.
			c.Write(echoCall(t, 1))
			if r := readReply(t, c); r.header.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS || r.header.GetCallId() != 1 {
				t.Fatalf("follow-up call: %v", r.header)
			}
		})
	}
}

func TestServerHTTPGet(t *testing.T) {
	c := dialRaw(t, echoServer(t, ServerOptions{}, nil))
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(httpResponse))
	// The server closes with our request partly unread, so a reset may follow the text.
	if _, err := io.ReadFull(c, got); err != nil || !strings.HasPrefix(string(got), "HTTP/1.1 404 Not Found\r\n") ||
		!strings.Contains(string(got), "making an HTTP request to a Hadoop IPC port") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestServerLegacyVersionReply(t *testing.T) {
	c := dialRaw(t, echoServer(t, ServerOptions{LegacyIPCPackage: true}, nil))
	c.Write([]byte{'h', 'r', 'p', 'c', 7, 0, 0})
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := readResponse(c, DefaultMaxDataLength, true)
	re, ok := err.(*RemoteError)
	if !ok || !re.Fatal || re.Class != "org.apache.hadoop.ipc.RPC$VersionMismatch" ||
		re.Message != "Server IPC version 9 cannot communicate with client version 7" {
		t.Fatalf("err = %v", err)
	}
}

func TestServerPingAndOutOfOrderCallIDs(t *testing.T) {
	c := dialRaw(t, echoServer(t, ServerOptions{}, nil))
	c.Write(unhex(t, vecPreambleSimple))
	c.Write(ctxFrame(t))
	c.Write(unhex(t, vecPing)) // never answered
	c.Write(callFrame(t, requestHeader(7, testClientID, 3), echoProtocol, 1, "echo", echoMsg("slow", "100ms")))
	c.Write(echoCall(t, 5))
	first, second := readReply(t, c), readReply(t, c)
	if first.header.GetCallId() != 5 || second.header.GetCallId() != 7 || second.header.GetRetryCount() != 3 {
		t.Fatalf("reply order/ids: %v then %v", first.header, second.header)
	}
}

func TestServerSASLKerberosOnly(t *testing.T) {
	c := dialRaw(t, echoServer(t, ServerOptions{KerberosOnly: true, KerberosPrincipal: "scm/scm1.example.com@EXAMPLE.COM"}, nil))
	c.Write(unhex(t, vecPreambleSASL))
	c.Write(unhex(t, vecSASLNegotiate))
	r := readReply(t, c)
	var m hadooppb.RpcSaslProto
	if err := proto.Unmarshal(r.body, &m); err != nil {
		t.Fatal(err)
	}
	a := m.GetAuths()
	if m.GetState() != hadooppb.RpcSaslProto_NEGOTIATE || len(a) != 1 || a[0].GetMethod() != "KERBEROS" ||
		a[0].GetMechanism() != "GSSAPI" || a[0].GetProtocol() != "scm" || a[0].GetServerId() != "scm1.example.com" {
		t.Fatalf("negotiate = %v", &m)
	}
	c.Write(mustFrame(t, requestHeader(callIDSASL, []byte{}, -1), &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_INITIATE.Enum(), Auths: a}))
	if r := readReply(t, c); r.header.GetStatus() != hadooppb.RpcResponseHeaderProto_FATAL || r.header.GetErrorDetail() != FatalUnauthorized {
		t.Fatalf("initiate reply: %v", r.header)
	}
	expectEOF(t, c)
}

// withPayload replaces the last delimited message of a call frame by raw bytes.
func withPayload(t testing.TB, frame, payload []byte) []byte {
	t.Helper()
	rest := frame[4:]
	for range 2 { // RpcRequestHeaderProto, RequestHeaderProto
		_, r, err := consumeDelimited(rest)
		if err != nil {
			t.Fatal(err)
		}
		rest = r
	}
	out := append(append([]byte{}, frame[:len(frame)-len(rest)]...), payload...)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}
