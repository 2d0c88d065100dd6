// Package wire holds the byte formats both ends of a Hadoop IPC version 9 connection speak: the
// connection preamble, the reserved call ids, the RPC headers, frames of length-delimited
// protobuf messages, the Writable strings of the pre-v9 fatal reply, and the SASL GSSAPI
// security layer (the offer and choice message, the wrapped packets). ozone/hadooprpc's client
// and the emulator's server (minicluster/rpcserver) are built on it, so they cannot disagree on
// a byte.
//
// Wire facts come from docs/hadoop-rpc.md and the upstream headers in apache/ozone:
// hadoop-hdds/interface-client/src/main/proto/RpcHeader.proto, IpcConnectionContext.proto and
// ProtobufRpcEngine.proto.
package wire

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hadooppb"
)

// Connection preamble: "hrpc", version 9, service class 0, auth protocol.
// Hadoop: hadoop-common-project/hadoop-common/src/main/java/org/apache/hadoop/ipc/RpcConstants.java.
const (
	// Version is the IPC version of the preamble, and serverIpcVersionNum of every reply.
	Version = 9
	// AuthNone is the auth byte of SIMPLE: no SASL frames.
	AuthNone = 0x00
	// AuthSASL is the auth byte of SASL, -33 as a signed byte.
	AuthSASL = 0xdf
	// PreambleSize is the length of the preamble.
	PreambleSize = 7
)

// Magic is the preamble's first four bytes.
const Magic = "hrpc"

// Reserved call ids (docs/hadoop-rpc.md#call-ids).
const (
	// CallIDAuthFailed is the call id of a connection-level FATAL reply.
	CallIDAuthFailed = -1
	// CallIDContext is the call id of the connection context.
	CallIDContext = -3
	// CallIDPing is the call id of a ping, which is never answered.
	CallIDPing = -4
	// CallIDSASL is the call id of every SASL message, wrapped packets included.
	CallIDSASL = -33
)

// Preamble returns the seven bytes that open a connection with the given auth byte.
func Preamble(auth byte) []byte {
	return append([]byte(Magic), Version, 0, auth)
}

// RequestHeader builds RpcRequestHeaderProto. retryCount is always written explicitly: 0
// differs from the proto default -1, and Java writes -1 too (docs/hadoop-rpc.md#encoding-pitfalls).
func RequestHeader(callID int32, clientID []byte, retry int32) *hadooppb.RpcRequestHeaderProto {
	return &hadooppb.RpcRequestHeaderProto{
		RpcKind:    hadooppb.RpcKindProto_RPC_PROTOCOL_BUFFER.Enum(),
		RpcOp:      hadooppb.RpcRequestHeaderProto_RPC_FINAL_PACKET.Enum(),
		CallId:     &callID,
		ClientId:   clientID,
		RetryCount: &retry,
	}
}

// ResponseHeader builds RpcResponseHeaderProto as a Java server writes it: the client id is
// always written, even empty (nil is taken as empty).
func ResponseHeader(id, retry int32, clientID []byte, status hadooppb.RpcResponseHeaderProto_RpcStatusProto) *hadooppb.RpcResponseHeaderProto {
	if clientID == nil {
		clientID = []byte{}
	}
	return &hadooppb.RpcResponseHeaderProto{
		CallId:              proto.Uint32(uint32(id)),
		Status:              status.Enum(),
		ServerIpcVersionNum: proto.Uint32(Version),
		ClientId:            clientID,
		RetryCount:          &retry,
	}
}

// AppendFrame appends a frame: uint32 big-endian length, then each message length-delimited.
// Proto marshalling is deterministic field order, so the bytes match protobuf-java's
// (docs/hadoop-rpc.md#test-vectors).
func AppendFrame(dst []byte, msgs ...proto.Message) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for _, m := range msgs {
		size := proto.Size(m)
		dst = protowire.AppendVarint(dst, uint64(size))
		var err error
		dst, err = proto.MarshalOptions{Deterministic: true, UseCachedSize: true}.MarshalAppend(dst, m)
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", m.ProtoReflect().Descriptor().Name(), err)
		}
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst, nil
}

// ConsumeDelimited splits one varint-length-delimited message off b.
func ConsumeDelimited(b []byte) (msg, rest []byte, err error) {
	n, used := protowire.ConsumeVarint(b)
	if used < 0 {
		return nil, nil, fmt.Errorf("bad length prefix: %v", protowire.ParseError(used))
	}
	if n > uint64(len(b)-used) {
		return nil, nil, fmt.Errorf("delimited message of %d bytes, only %d left", n, len(b)-used)
	}
	end := used + int(n)
	return b[used:end], b[end:], nil
}
