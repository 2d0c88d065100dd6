package rpcserver

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// request decodes a protobuf call and runs its handler in a goroutine.
func (sc *conn) request(h *hadooppb.RpcRequestHeaderProto, payload []byte) bool {
	id, retry := h.GetCallId(), h.GetRetryCount()
	if h.GetRpcKind() != hadooppb.RpcKindProto_RPC_PROTOCOL_BUFFER {
		return sc.fatalRPC(id, retry, hadooprpc.FatalInvalidRPCHeader, "Unknown rpc kind in rpc header"+h.GetRpcKind().String())
	}
	var rh hadooppb.RequestHeaderProto
	rb, rest, err := wire.ConsumeDelimited(payload)
	if err == nil {
		err = proto.Unmarshal(rb, &rh)
	}
	var req []byte
	if err == nil {
		req, _, err = wire.ConsumeDelimited(rest)
	}
	if err != nil {
		return sc.fatalRPC(id, retry, hadooprpc.FatalDeserializingRequest, "IPC server unable to read call parameters: "+err.Error())
	}
	call := CallInfo{
		User: sc.user, Protocol: rh.GetDeclaringClassProtocolName(), Method: rh.GetMethodName(),
		RemoteAddr: sc.nc.RemoteAddr(), CallID: id, RetryCount: retry, ClientID: h.GetClientId(),
	}
	handler, lookupErr := sc.s.lookup(call.Protocol, rh.GetClientProtocolVersion(), call.Method)
	if lookupErr != nil {
		return sc.replyError(call, lookupErr)
	}
	sc.calls.Add(1)
	go func() {
		defer sc.calls.Done()
		resp, err := handler(sc.ctx, call, req)
		if err != nil {
			if !sc.replyError(call, err) {
				sc.shutdown()
			}
			return
		}
		if resp == nil {
			err = fmt.Errorf("handler for %s.%s returned no response", call.Protocol, call.Method)
		} else {
			err = sc.reply(wire.ResponseHeader(call.CallID, call.RetryCount, call.ClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), resp)
		}
		if err != nil {
			sc.replyError(call, &hadooprpc.RemoteError{Class: sc.s.ipc + "RpcServerException", Detail: hadooprpc.ErrorSerializingResponse, Message: err.Error()})
		}
	}()
	return true
}

// replyError sends err as the reply to call; false when it was fatal.
func (sc *conn) replyError(call CallInfo, err error) bool {
	var re *hadooprpc.RemoteError
	switch {
	case errors.As(err, &re):
	case errors.Is(err, ErrBadRequest):
		re = &hadooprpc.RemoteError{Class: sc.s.ipc + "RpcServerException", Detail: hadooprpc.FatalDeserializingRequest, Fatal: true,
			Message: "IPC server unable to read call parameters: " + err.Error()}
	default:
		re = &hadooprpc.RemoteError{Class: "java.io.IOException", Detail: hadooprpc.ErrorApplication, Message: err.Error()}
	}
	status := hadooppb.RpcResponseHeaderProto_ERROR
	detail := re.Detail
	if re.Fatal {
		status = hadooppb.RpcResponseHeaderProto_FATAL
		if detail == 0 {
			detail = hadooprpc.FatalUnknown
		}
	} else if detail == 0 {
		detail = hadooprpc.ErrorApplication
	}
	h := wire.ResponseHeader(call.CallID, call.RetryCount, call.ClientID, status)
	h.ExceptionClassName = &re.Class
	h.ErrorMsg = &re.Message
	h.ErrorDetail = detail.Enum()
	sc.reply(h, nil)
	return !re.Fatal
}

// fatalRPC answers a failure of the RPC layer itself (Java wraps the text in
// an RpcServerException) and reports that the connection must close.
func (sc *conn) fatalRPC(id, retry int32, code hadooprpc.ErrorCode, msg string) bool {
	sc.fatal(id, retry, code, sc.s.ipc+"RpcServerException", msg)
	return false
}

// fatal sends a FATAL reply with an empty clientId, as Java's connection-level
// replies have (docs/hadoop-rpc.md#server-frames).
func (sc *conn) fatal(id, retry int32, code hadooprpc.ErrorCode, class, msg string) {
	h := wire.ResponseHeader(id, retry, nil, hadooppb.RpcResponseHeaderProto_FATAL)
	h.ExceptionClassName = &class
	h.ErrorMsg = &msg
	h.ErrorDetail = code.Enum()
	sc.reply(h, nil)
}

func (sc *conn) saslReply(m *hadooppb.RpcSaslProto) bool {
	return sc.reply(wire.ResponseHeader(wire.CallIDSASL, -1, nil, hadooppb.RpcResponseHeaderProto_SUCCESS), m) == nil
}

// reply writes one response frame. It fails only when the message does not
// marshal; write errors are left to the serve goroutine, which sees the
// broken socket and closes the connection.
func (sc *conn) reply(h *hadooppb.RpcResponseHeaderProto, body proto.Message) error {
	msgs := []proto.Message{h}
	if body != nil {
		msgs = append(msgs, body)
	}
	frame, err := wire.AppendFrame(nil, msgs...)
	if err != nil {
		return fmt.Errorf("reply to call %d: %w", int32(h.GetCallId()), err)
	}
	if !sc.s.awake(sc.ctx) {
		return nil // the connection closed while the server was paused
	}
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	if sc.wrapCtx != nil {
		// Under integrity or privacy every reply frame travels inside a SASL WRAP packet.
		tok, err := sc.wrapCtx.Wrap(frame, sc.seal)
		if err != nil {
			return fmt.Errorf("reply to call %d: SASL wrap: %w", int32(h.GetCallId()), err)
		}
		frame, err = wire.AppendFrame(nil, wire.ResponseHeader(wire.CallIDSASL, -1, nil, hadooppb.RpcResponseHeaderProto_SUCCESS),
			&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_WRAP.Enum(), Token: tok})
		if err != nil {
			return err
		}
	}
	sc.nc.Write(frame)
	return nil
}
