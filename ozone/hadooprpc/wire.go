// Package hadooprpc speaks Hadoop IPC version 9 with the protobuf RPC engine:
// a multiplexing client (one TCP connection per server and protocol, calls
// matched by callId) and the strict server side the SCM emulator is built on.
//
// Wire facts come from docs/hadoop-rpc.md and the upstream headers in
// apache/ozone: hadoop-hdds/interface-client/src/main/proto/RpcHeader.proto,
// IpcConnectionContext.proto and ProtobufRpcEngine.proto.
package hadooprpc

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
	rpcVersion   = 9
	authNone     = 0x00 // SIMPLE: no SASL frames
	authSASL     = 0xdf // -33 as a signed byte
	preambleSize = 7
)

var rpcMagic = [4]byte{'h', 'r', 'p', 'c'}

// Reserved call ids (docs/hadoop-rpc.md#call-ids).
const (
	callIDAuthFailed = -1
	callIDContext    = -3
	callIDPing       = -4
	callIDSASL       = -33
)

// DefaultMaxDataLength is ipc.maximum.data.length / ipc.maximum.response.length
// (128 MiB), the largest frame either side accepts.
const DefaultMaxDataLength = 128 << 20

// DefaultProtocolVersion is clientProtocolVersion for every SCM protocol
// (docs/ozone-scm.md#endpoints).
const DefaultProtocolVersion = 1

// ipcPackage is the Java package of IPC-layer exception classes: Ozone ≥ 2.2
// runs a fork under "ipc_", older releases Hadoop's "ipc"
// (docs/hadoop-rpc.md#exception-class-names).
const (
	ipcPackage       = "org.apache.hadoop.ipc_."
	legacyIPCPackage = "org.apache.hadoop.ipc."
)

func preamble(auth byte) []byte {
	return []byte{rpcMagic[0], rpcMagic[1], rpcMagic[2], rpcMagic[3], rpcVersion, 0, auth}
}

// requestHeader builds RpcRequestHeaderProto. retryCount is always written
// explicitly: 0 differs from the proto default -1, and Java writes -1 too
// (docs/hadoop-rpc.md#encoding-pitfalls).
func requestHeader(callID int32, clientID []byte, retry int32) *hadooppb.RpcRequestHeaderProto {
	return &hadooppb.RpcRequestHeaderProto{
		RpcKind:    hadooppb.RpcKindProto_RPC_PROTOCOL_BUFFER.Enum(),
		RpcOp:      hadooppb.RpcRequestHeaderProto_RPC_FINAL_PACKET.Enum(),
		CallId:     &callID,
		ClientId:   clientID,
		RetryCount: &retry,
	}
}

// appendFrame appends a frame: uint32 big-endian length, then each message
// length-delimited. Proto marshalling is deterministic field order, so the
// bytes match protobuf-java's (docs/hadoop-rpc.md#test-vectors).
func appendFrame(dst []byte, msgs ...proto.Message) ([]byte, error) {
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

// consumeDelimited splits one varint-length-delimited message off b.
func consumeDelimited(b []byte) (msg, rest []byte, err error) {
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
