package rpcserver

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// httpResponse answers an HTTP GET sent to the IPC port.
// Hadoop: org/apache/hadoop/ipc/Server.java (RECEIVED_HTTP_REQ_RESPONSE).
const httpResponse = "HTTP/1.1 404 Not Found\r\n" +
	"Content-type: text/plain\r\n\r\n" +
	"It looks like you are making an HTTP request to a Hadoop IPC port. " +
	"This is not the correct port for the web interface on this daemon.\r\n"

// conn is one accepted connection. Its serve goroutine reads frames in
// order; each call's handler runs in its own goroutine, so replies may leave
// out of order, serialised by wmu.
type conn struct {
	s      *Server
	nc     net.Conn
	ctx    context.Context
	cancel context.CancelFunc
	wmu    sync.Mutex
	calls  sync.WaitGroup

	// State below is written only by the serve goroutine (handlers it starts
	// later read the wrapping state).
	sasl          bool // SASL negotiation announced and not finished
	saslUsed      bool // SASL announced and not switched to SIMPLE
	sentNegotiate bool
	contextRead   bool
	user          string
	gss           gssState
	wrapCtx       *kerberos.Context // set once integrity or privacy is negotiated
	seal          bool              // privacy: replies are sealed, requests must be
	inbuf         []byte            // unwrapped request bytes not yet a whole frame
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{s: s, nc: nc, ctx: ctx, cancel: cancel}
}

// shutdown closes the socket and cancels running handlers; serve then exits.
func (sc *conn) shutdown() {
	sc.cancel()
	sc.nc.Close()
}

func (sc *conn) serve() {
	defer func() {
		sc.shutdown()
		sc.calls.Wait()
	}()
	if !sc.s.awake(sc.ctx) || !sc.readPreamble() {
		return
	}
	br := bufio.NewReader(sc.nc)
	for {
		var lenBuf [4]byte
		if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
			return
		}
		// Java closes without a reply on a negative or oversized length.
		n := int32(binary.BigEndian.Uint32(lenBuf[:]))
		if n < 0 || int64(n) > int64(sc.s.opts.MaxDataLength) {
			return
		}
		frame, err := wire.ReadN(br, int(n))
		if err != nil || !sc.s.awake(sc.ctx) {
			return
		}
		if !sc.processOne(frame) {
			return
		}
	}
}

// readPreamble checks "hrpc", the version and the auth byte
// (docs/hadoop-rpc.md#connection-preamble).
func (sc *conn) readPreamble() bool {
	// Like Java, read all seven bytes before looking at any of them.
	var p [wire.PreambleSize]byte
	if _, err := io.ReadFull(sc.nc, p[:]); err != nil {
		return false
	}
	if string(p[:4]) == "GET " {
		sc.nc.Write([]byte(httpResponse))
		return false
	}
	version := int(int8(p[4]))
	if string(p[:4]) != wire.Magic || version != wire.Version {
		sc.badVersion(version)
		return false
	}
	switch auth := int8(p[6]); auth {
	case wire.AuthNone:
		if sc.s.opts.KerberosOnly {
			sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalUnauthorized, "org.apache.hadoop.security.AccessControlException",
				"SIMPLE authentication is not enabled.  Available:[KERBEROS]")
			return false
		}
	case int8(-33):
		sc.sasl, sc.saslUsed = true, true
	default:
		sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalUnauthorized, sc.s.ipc+"IpcException", fmt.Sprintf("Unknown auth protocol:%d", auth))
		return false
	}
	return true
}

// badVersion answers a client it cannot speak to in a format that client
// can read. Hadoop: org/apache/hadoop/ipc/Server.java (setupBadVersionResponse).
func (sc *conn) badVersion(version int) {
	class := sc.s.ipc + "RPC$VersionMismatch"
	msg := fmt.Sprintf("Server IPC version %d cannot communicate with client version %d", wire.Version, version)
	var b []byte
	switch {
	case version >= wire.Version:
		sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalVersionMismatch, class, msg)
		return
	case version >= 3: // callId -1, status -1, class, message
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
	case version == 2: // callId 0, error flag
		b = binary.BigEndian.AppendUint32(b, 0)
		b = append(b, 1)
	default:
		return
	}
	b = wire.AppendWritableString(b, class)
	sc.nc.Write(wire.AppendWritableString(b, msg))
}

// processOne handles one frame; false means the connection must close.
// Hadoop: org/apache/hadoop/ipc/Server.java (processOneRpc, checkRpcHeaders).
func (sc *conn) processOne(frame []byte) bool {
	h := new(hadooppb.RpcRequestHeaderProto)
	hb, rest, err := wire.ConsumeDelimited(frame)
	if err == nil {
		err = proto.Unmarshal(hb, h)
	}
	if err != nil {
		return sc.fatalRPC(-1, -1, hadooprpc.FatalDeserializingRequest, "Error decoding RpcRequestHeaderProto: "+err.Error())
	}
	id, retry := h.GetCallId(), h.GetRetryCount()
	switch {
	case h.RpcOp == nil:
		return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, " IPC Server: No rpc op in rpcRequestHeader")
	case h.GetRpcOp() != hadooppb.RpcRequestHeaderProto_RPC_FINAL_PACKET:
		return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "IPC Server does not implement rpc header operation"+h.GetRpcOp().String())
	case h.RpcKind == nil:
		return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, " IPC Server: No rpc kind in rpcRequestHeader")
	case id < 0:
		return sc.outOfBand(h, rest)
	case !sc.contextRead:
		return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "Connection context not established")
	}
	return sc.request(h, rest)
}

// outOfBand handles the negative call ids of connection setup (docs/hadoop-rpc.md#minimal-server).
func (sc *conn) outOfBand(h *hadooppb.RpcRequestHeaderProto, payload []byte) bool {
	id, retry := h.GetCallId(), h.GetRetryCount()
	switch id {
	case wire.CallIDContext:
		if sc.sasl {
			return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "Connection header sent during SASL negotiation")
		}
		if sc.contextRead {
			return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "Connection context already processed")
		}
		var c hadooppb.IpcConnectionContextProto
		if err := unmarshalDelimited(payload, &c); err != nil {
			return sc.fatalRPC(id, retry, hadooprpc.FatalDeserializingRequest, "Error decoding IpcConnectionContextProto: "+err.Error())
		}
		sc.user = c.GetUserInfo().GetEffectiveUser()
		sc.contextRead = true
		return sc.authorizeUser(id, retry)
	case wire.CallIDSASL:
		if !sc.saslUsed {
			return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "SASL protocol not requested by client")
		}
		return sc.saslMessage(id, retry, payload)
	case wire.CallIDPing:
		return true // logged by Java, never answered
	}
	return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, fmt.Sprintf("Unknown out of band call #%d", id))
}

// saslMessage runs the server side of negotiation: a SIMPLE server switches
// the client to SIMPLE; a Kerberos server offers GSSAPI and completes it with
// its acceptor, or refuses it when it has none (docs/hadoop-rpc.md, SASL).
func (sc *conn) saslMessage(id, retry int32, payload []byte) bool {
	var m hadooppb.RpcSaslProto
	if err := unmarshalDelimited(payload, &m); err != nil {
		return sc.fatalRPC(id, retry, hadooprpc.FatalDeserializingRequest, "Error decoding RpcSaslProto: "+err.Error())
	}
	state := m.GetState()
	if state == hadooppb.RpcSaslProto_WRAP {
		if sc.wrapCtx == nil {
			return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "Server is not wrapping data")
		}
		return sc.unwrapPacket(m.GetToken())
	}
	if !sc.sasl {
		return sc.saslFail("Client sent SASL message after negotiation: " + state.String())
	}
	if !sc.s.opts.KerberosOnly && (state == hadooppb.RpcSaslProto_NEGOTIATE || state == hadooppb.RpcSaslProto_INITIATE) {
		sc.sasl = false // switched to SIMPLE: the context may follow
		sc.saslUsed = false
		return sc.saslReply(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_SUCCESS.Enum()})
	}
	if state == hadooppb.RpcSaslProto_NEGOTIATE {
		if sc.sentNegotiate {
			sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalUnauthorized, "org.apache.hadoop.security.AccessControlException", "Client already attempted negotiation")
			return false
		}
		sc.sentNegotiate = true
		return sc.saslReply(sc.kerberosNegotiate())
	}
	if sc.s.opts.Kerberos == nil {
		return sc.saslFail("GSS initiate failed")
	}
	return sc.gssapiStep(&m)
}

func (sc *conn) kerberosNegotiate() *hadooppb.RpcSaslProto {
	return &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_NEGOTIATE.Enum(), Auths: sc.s.advertised()}
}

// splitPrincipal splits "protocol/host@REALM" into protocol and host.
func splitPrincipal(p string) (protocol, host string) {
	for i := 0; i < len(p); i++ {
		if p[i] == '@' {
			p = p[:i]
			break
		}
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:]
		}
	}
	return p, ""
}

func unmarshalDelimited(b []byte, m proto.Message) error {
	msg, _, err := wire.ConsumeDelimited(b)
	if err != nil {
		return err
	}
	return proto.Unmarshal(msg, m)
}
