package datanode

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Result describes one Echo call, successful or not.
type Result struct {
	// DataNode is the member the last attempt went to.
	DataNode DataNode
	// Code is the Ozone result code of the last response; 0 when no response
	// arrived. Ozone: DatanodeClientProtocol.proto, ContainerCommandResponseProto.result, field 3.
	Code dnpb.Result
	// Message is the DataNode's message of a non-SUCCESS response.
	Message string
	// GRPCCode is the gRPC status of the last attempt (codes.OK when the
	// DataNode answered, whatever the Ozone result).
	GRPCCode codes.Code
	// RTT runs from the start of the call — before waiting for a MaxOutstanding slot — to the
	// response of the last attempt (or its failure), so it includes failed attempts, like
	// freon's rpc-payload timer (see package ozone/echo for the interval every front end
	// records). The end-of-stream read that follows a response is not included.
	RTT time.Duration
	// BytesSent and BytesReceived count protobuf message bytes over all
	// attempts (without gRPC framing).
	BytesSent, BytesReceived int
	// Attempts is the number of members tried (0 if none was).
	Attempts int
	// Earlier are the attempts before the last, in order; nil for a call of one attempt (the
	// common case allocates nothing). Their Took and the last attempt's (LastTook) add up to RTT.
	Earlier []Attempt

	// answered is when the last attempt's response arrived (zero if none did): RTT ends there,
	// not after the end-of-stream read that follows it.
	answered time.Time
}

// Attempt is one failed attempt of a call that went on to another member.
type Attempt struct {
	// DataNode is the member it went to.
	DataNode DataNode
	// Took is its own part of the call's RTT: from the end of the attempt before it (the start
	// of the call, slot wait included, for the first) to its failure or its failed response.
	Took time.Duration
	// Code and GRPCCode are its outcome, as Result's are the last attempt's.
	Code     dnpb.Result
	GRPCCode codes.Code
}

// LastTook is the last attempt's own part of RTT: all of it for a call of one attempt.
func (r Result) LastTook() time.Duration {
	t := r.RTT
	for _, a := range r.Earlier {
		t -= a.Took
	}
	return t
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Code == dnpb.Result_SUCCESS && r.GRPCCode == codes.OK }

// EchoError is a non-SUCCESS Ozone result, which the Java client raises as a
// StorageContainerException (or a subclass) with the DataNode's message.
type EchoError struct {
	DataNode DataNode
	// Code is the response's Ozone result code, as in Result.Code.
	Code    dnpb.Result
	Message string
}

func (e *EchoError) Error() string {
	return "datanode " + e.DataNode.UUID + " (" + e.DataNode.Addr + "): " + e.Code.String() + ": " + e.Message
}

// ErrNoReply is wrapped by the error of a stream that ended with status OK
// without a response. The text is the Java client's (XceiverClientGrpc).
var ErrNoReply = errors.New("Stream completed but no reply for request")

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("datanode: client closed")

// TargetError is an Options.Target naming one DataNode that matches none, or several, of the
// pipeline's members.
type TargetError struct {
	Target Target
	Reason string
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("datanode: option Target %q %s", string(e.Target), e.Reason)
}
