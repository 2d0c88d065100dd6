package rpcserver_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

func TestServerRejects(t *testing.T) {
	raw := func(b ...byte) func(testing.TB) []byte { return func(testing.TB) []byte { return b } }
	simple, sasl := raw(vec.Bytes(vec.PreambleSimple)...), raw(vec.Bytes(vec.PreambleSASL)...)
	noOp := wire.RequestHeader(0, testClientID, 0)
	noOp.RpcOp = nil
	contOp := wire.RequestHeader(0, testClientID, 0)
	contOp.RpcOp = hadooppb.RpcRequestHeaderProto_RPC_CONTINUATION_PACKET.Enum()
	noKind := wire.RequestHeader(0, testClientID, 0)
	noKind.RpcKind = nil
	writable := wire.RequestHeader(0, testClientID, 0)
	writable.RpcKind = hadooppb.RpcKindProto_RPC_WRITABLE.Enum()

	type reply struct {
		status hadooppb.RpcResponseHeaderProto_RpcStatusProto
		callID int32
		detail hadooprpc.ErrorCode
		class  string // simple name
		msg    string // prefix
	}
	fatal := func(id int32, d hadooprpc.ErrorCode, class, msg string) *reply {
		return &reply{hadooppb.RpcResponseHeaderProto_FATAL, id, d, class, msg}
	}
	errorReply := func(d hadooprpc.ErrorCode, class, msg string) *reply {
		return &reply{hadooppb.RpcResponseHeaderProto_ERROR, 0, d, class, msg}
	}
	tests := []struct {
		name   string
		send   []func(testing.TB) []byte
		want   *reply // nil: no reply expected
		closes bool
	}{
		{"bad magic", []func(testing.TB) []byte{raw('h', 'r', 'p', 'x', 9, 0, 0)},
			fatal(-1, hadooprpc.FatalVersionMismatch, "RPC$VersionMismatch", "Server IPC version 9 cannot communicate with client version 9"), true},
		{"newer version", []func(testing.TB) []byte{raw('h', 'r', 'p', 'c', 10, 0, 0)},
			fatal(-1, hadooprpc.FatalVersionMismatch, "RPC$VersionMismatch", "Server IPC version 9 cannot communicate with client version 10"), true},
		{"unknown auth", []func(testing.TB) []byte{raw('h', 'r', 'p', 'c', 9, 0, 0x50)},
			fatal(-1, hadooprpc.FatalUnauthorized, "IpcException", "Unknown auth protocol:80"), true},
		{"call before context", []func(testing.TB) []byte{simple, func(t testing.TB) []byte { return echoCall(t, 0) }},
			fatal(0, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "Connection context not established"), true},
		{"second context", []func(testing.TB) []byte{simple, ctxFrame, ctxFrame},
			fatal(-3, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "Connection context already processed"), true},
		{"context during SASL", []func(testing.TB) []byte{sasl, ctxFrame},
			fatal(-3, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "Connection header sent during SASL negotiation"), true},
		{"SASL not requested", []func(testing.TB) []byte{simple, ctxFrame, raw(vec.Bytes(vec.SASLNegotiate)...)},
			fatal(-33, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "SASL protocol not requested by client"), true},
		{"unknown out of band", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return rpcservertest.Frame(t, wire.RequestHeader(-7, testClientID, -1)) }},
			fatal(-7, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "Unknown out of band call #-7"), true},
		{"no rpc op", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return rpcservertest.Frame(t, noOp) }},
			fatal(0, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", " IPC Server: No rpc op in rpcRequestHeader"), true},
		{"continuation packet", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return rpcservertest.Frame(t, contOp) }},
			fatal(0, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "IPC Server does not implement rpc header operationRPC_CONTINUATION_PACKET"), true},
		{"no rpc kind", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte { return rpcservertest.Frame(t, noKind) }},
			fatal(0, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", " IPC Server: No rpc kind in rpcRequestHeader"), true},
		{"writable rpc kind", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, writable, rpcservertest.EchoProtocol, 1, "echo", rpcservertest.EchoMsg("x", ""))
		}},
			fatal(0, hadooprpc.FatalInvalidRPCHeader, "RpcServerException", "Unknown rpc kind in rpc headerRPC_WRITABLE"), true},
		{"header does not decode", []func(testing.TB) []byte{simple, ctxFrame, raw(0, 0, 0, 2, 1, 0xff)},
			fatal(-1, hadooprpc.FatalDeserializingRequest, "RpcServerException", "Error decoding RpcRequestHeaderProto: "), true},
		{"request does not decode", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return withPayload(t, echoCall(t, 0), []byte{2, 0x0a, 0x05}) // a string field cut short
		}}, fatal(0, hadooprpc.FatalDeserializingRequest, "RpcServerException", "IPC server unable to read call parameters: "), true},
		{"request missing", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return withPayload(t, echoCall(t, 0), []byte{9, 0x0a})
		}}, fatal(0, hadooprpc.FatalDeserializingRequest, "RpcServerException", "IPC server unable to read call parameters: "), true},
		{"unknown protocol", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, wire.RequestHeader(0, testClientID, 0), "no.Such", 1, "echo", rpcservertest.EchoMsg("x", ""))
		}}, errorReply(hadooprpc.ErrorNoSuchProtocol, "RpcNoSuchProtocolException", "Unknown protocol: no.Such"), false},
		{"version mismatch", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, wire.RequestHeader(0, testClientID, 0), rpcservertest.EchoProtocol, 2, "echo", rpcservertest.EchoMsg("x", ""))
		}}, errorReply(hadooprpc.ErrorRPCServer, "RPC$VersionMismatch", "Protocol test.EchoProtocol version mismatch. (client = 2, server = 1)"), false},
		{"unknown method", []func(testing.TB) []byte{simple, ctxFrame, func(t testing.TB) []byte {
			return callFrame(t, wire.RequestHeader(0, testClientID, 0), rpcservertest.EchoProtocol, 1, "nope", rpcservertest.EchoMsg("x", ""))
		}}, errorReply(hadooprpc.ErrorNoSuchMethod, "RpcNoSuchMethodException", "Unknown method nope called on test.EchoProtocol protocol."), false},
		{"oversized frame", []func(testing.TB) []byte{simple, ctxFrame, raw(0, 0, 0x10, 1)}, nil, true},
		{"negative length", []func(testing.TB) []byte{simple, ctxFrame, raw(0xff, 0, 0, 0)}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rpcservertest.EchoServer(t, rpcserver.Options{MaxDataLength: 4096}, nil)
			c := dialRaw(t, addr)
			for _, f := range tt.send {
				c.Write(f(t))
			}
			if tt.want != nil {
				h, _ := readReply(t, c)
				if h.GetStatus() != tt.want.status || int32(h.GetCallId()) != tt.want.callID || h.GetErrorDetail() != tt.want.detail ||
					!strings.HasPrefix(h.GetExceptionClassName(), "org.apache.hadoop.ipc_.") && tt.want.class != "AccessControlException" ||
					hadooprpc.SimpleClassName(h.GetExceptionClassName()) != tt.want.class || !strings.HasPrefix(h.GetErrorMsg(), tt.want.msg) {
					t.Fatalf("reply %v", h)
				}
				if h.GetServerIpcVersionNum() != 9 {
					t.Errorf("serverIpcVersionNum = %d", h.GetServerIpcVersionNum())
				}
			}
			if tt.closes {
				rpcservertest.ExpectEOF(t, c)
				return
			}
			// The connection is still usable.
			c.Write(echoCall(t, 1))
			if h, _ := readReply(t, c); h.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS || h.GetCallId() != 1 {
				t.Fatalf("follow-up call: %v", h)
			}
		})
	}
}

// An HTTP GET on the IPC port gets Java's 404 text.
// Hadoop: org/apache/hadoop/ipc/Server.java (RECEIVED_HTTP_REQ_RESPONSE).
func TestServerHTTPGet(t *testing.T) {
	const want = "HTTP/1.1 404 Not Found\r\n" +
		"Content-type: text/plain\r\n\r\n" +
		"It looks like you are making an HTTP request to a Hadoop IPC port. " +
		"This is not the correct port for the web interface on this daemon.\r\n"
	c := dialRaw(t, rpcservertest.EchoServer(t, rpcserver.Options{}, nil))
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	// The server closes with our request partly unread, so a reset may follow the text.
	rpcservertest.ExpectBytes(t, c, "the 404 text", []byte(want))
}

// A client of IPC version 3 to 8 gets the pre-v9 fatal reply: callId -1, status -1, then the
// class and the message as Writable strings.
func TestServerLegacyVersionReply(t *testing.T) {
	c := dialRaw(t, rpcservertest.EchoServer(t, rpcserver.Options{LegacyIPCPackage: true}, nil))
	c.Write([]byte{'h', 'r', 'p', 'c', 7, 0, 0})
	want := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for _, s := range []string{"org.apache.hadoop.ipc.RPC$VersionMismatch", "Server IPC version 9 cannot communicate with client version 7"} {
		want = binary.BigEndian.AppendUint32(want, uint32(len(s)))
		want = append(want, s...)
	}
	rpcservertest.ExpectBytes(t, c, "legacy fatal reply", want)
	rpcservertest.ExpectEOF(t, c)
}

func TestServerPingAndOutOfOrderCallIDs(t *testing.T) {
	c := dialRaw(t, rpcservertest.EchoServer(t, rpcserver.Options{}, nil))
	c.Write(vec.Bytes(vec.PreambleSimple))
	c.Write(ctxFrame(t))
	c.Write(vec.Bytes(vec.Ping)) // never answered
	c.Write(callFrame(t, wire.RequestHeader(7, testClientID, 3), rpcservertest.EchoProtocol, 1, "echo", rpcservertest.EchoMsg("slow", "100ms")))
	c.Write(echoCall(t, 5))
	first, _ := readReply(t, c)
	second, _ := readReply(t, c)
	if first.GetCallId() != 5 || second.GetCallId() != 7 || second.GetRetryCount() != 3 {
		t.Fatalf("reply order/ids: %v then %v", first, second)
	}
}

func TestServerSASLKerberosOnly(t *testing.T) {
	c := dialRaw(t, rpcservertest.EchoServer(t, rpcserver.Options{KerberosOnly: true, KerberosPrincipal: "scm/scm1.example.com@EXAMPLE.COM"}, nil))
	c.Write(vec.Bytes(vec.PreambleSASL))
	c.Write(vec.Bytes(vec.SASLNegotiate))
	_, body := readReply(t, c)
	var m hadooppb.RpcSaslProto
	if err := proto.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	a := m.GetAuths()
	if m.GetState() != hadooppb.RpcSaslProto_NEGOTIATE || len(a) != 1 || a[0].GetMethod() != "KERBEROS" ||
		a[0].GetMechanism() != "GSSAPI" || a[0].GetProtocol() != "scm" || a[0].GetServerId() != "scm1.example.com" {
		t.Fatalf("negotiate = %v", &m)
	}
	c.Write(rpcservertest.Frame(t, wire.RequestHeader(wire.CallIDSASL, []byte{}, -1), &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_INITIATE.Enum(), Auths: a}))
	if h, _ := readReply(t, c); h.GetStatus() != hadooppb.RpcResponseHeaderProto_FATAL || h.GetErrorDetail() != hadooprpc.FatalUnauthorized {
		t.Fatalf("initiate reply: %v", h)
	}
	rpcservertest.ExpectEOF(t, c)
}
