// Package floor is the cheapest Echo client grpc-go allows, the floor `make bench` measures dnecho
// against: the request is encoded once and handed to grpc-go as is, the reply is checked in place
// by scanning its protobuf bytes, and a call allocates nothing beyond what grpc-go itself does.
// It speaks exactly what the Java client puts on the wire (ozone/datanode/call.go describes it).
package floor

import (
	"fmt"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// clientVersion is the version the Java client stamps on every request
// (Ozone: ClientVersion.java, BUCKET_LAYOUT_SUPPORT = 3).
const clientVersion = 3

// Request is an Echo request encoded once. It is immutable and safe for concurrent use.
type Request struct {
	bytes []byte
	// bufs wraps bytes for grpc-go without copying; mem.SliceBuffer's Ref and Free do nothing,
	// so grpc-go can hold and release it any number of times.
	bufs mem.BufferSlice
}

// NewRequest encodes a read-only Echo for containerID on the DataNode datanodeUUID asking for
// payloadSizeResp bytes back, field for field as the Java client builds it
// (Ozone: ContainerProtocolCalls.echo): traceID "", an empty payload that is still present,
// sleep 0, version 3.
func NewRequest(containerID int64, datanodeUUID string, payloadSizeResp int32) (*Request, error) {
	msg := &dnpb.ContainerCommandRequestProto{
		CmdType:      dnpb.Type_Echo.Enum(),
		TraceID:      proto.String(""),
		ContainerID:  proto.Int64(containerID),
		DatanodeUuid: proto.String(datanodeUUID),
		Version:      proto.Uint32(clientVersion),
		Echo: &dnpb.EchoRequestProto{
			Payload:         []byte{},
			PayloadSizeResp: proto.Int32(payloadSizeResp),
			SleepTimeMs:     proto.Int32(0),
			ReadOnly:        proto.Bool(true),
		},
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("floor: encode echo request: %w", err)
	}
	return &Request{bytes: b, bufs: mem.BufferSlice{mem.SliceBuffer(b)}}, nil
}

// Bytes returns the encoded request; the caller must not modify it.
func (r *Request) Bytes() []byte { return r.bytes }
