package dnsim

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Exact DataNode messages (docs/ozone-echo.md#echo-dispatch-order). "null" is the dispatcher
// context, which is null on the gRPC path.
const (
	msgTokenMissing   = "BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to find any token (empty or null.)"
	msgTokenUndecoded = "BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to decode token : "
	// msgNegativeSize stands in for the random-byte generator's exception
	// text (Apache commons-lang3 Validate message; docs/ozone-echo.md#echo-dispatch-order).
	msgNegativeSize = "Count cannot be negative."
)

var emptyTraceID = ""

// response starts a response the way ContainerCommandResponseBuilders does:
// cmdType and traceID copied (traceID always present), clientId/callId copied
// only when the request carried both (docs/ozone-echo.md#echo-response).
func response(req *dnpb.ContainerCommandRequestProto, result dnpb.Result) *dnpb.ContainerCommandResponseProto {
	resp := &dnpb.ContainerCommandResponseProto{
		CmdType: req.CmdType,
		TraceID: req.TraceID,
		Result:  result.Enum(),
	}
	if resp.TraceID == nil {
		resp.TraceID = &emptyTraceID
	}
	if req.ClientId != nil && req.CallId != nil {
		resp.ClientId = req.ClientId
		resp.CallId = req.CallId
	}
	return resp
}

// failure is an error response: never an echo body (docs/ozone-echo.md#echo-response).
func failure(req *dnpb.ContainerCommandRequestProto, result dnpb.Result, msg string) *dnpb.ContainerCommandResponseProto {
	resp := response(req, result)
	resp.Message = proto.String(msg)
	return resp
}

// dispatch answers one parsed request. A non-nil error ends the stream with
// that gRPC status instead of answering.
func (d *DataNode) dispatch(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	return d.dispatchChecked(ctx, req, true)
}

// dispatchChecked is dispatch with the token check optional: the apply of a Ratis write skips
// it (the leader checked the token before logging the write).
func (d *DataNode) dispatchChecked(ctx context.Context, req *dnpb.ContainerCommandRequestProto, checkToken bool) (*dnpb.ContainerCommandResponseProto, error) {
	// Step 1: the DN checks that every command carries a decodable token
	// when token verification is on (docs/ozone-echo.md#token-checks); Echo needs nothing more.
	if checkToken && d.tokenVerification {
		tok := req.GetEncodedToken()
		if tok == "" {
			return failure(req, dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED, msgTokenMissing), nil
		}
		if err := decodeToken(tok); err != nil {
			return failure(req, dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED, msgTokenUndecoded+tok), nil
		}
	}
	if req.GetCmdType() != dnpb.Type_Echo {
		return failure(req, dnpb.Result_UNSUPPORTED_REQUEST,
			"dnsim: command type "+req.GetCmdType().String()+" is not supported by the Echo emulator"), nil
	}

	echo := req.GetEcho()
	readOnly := echo.GetReadOnly() // absent counts as false (docs/ozone-echo.md#read-only-flag)
	id := req.GetContainerID()
	if !readOnly && d.missing[id] {
		return failure(req, dnpb.Result_CONTAINER_MISSING,
			"ContainerID "+strconv.FormatInt(id, 10)+" has been lost and cannot be recreated on this DataNode"), nil
	}
	replicaIndex, held := d.containers[id]
	if !held {
		return failure(req, dnpb.Result_CONTAINER_NOT_FOUND,
			"ContainerID "+strconv.FormatInt(id, 10)+" does not exist"), nil
	}
	if replicaIndex > 0 && req.GetDatanodeUuid() != d.uuidText {
		return failure(req, dnpb.Result_INVALID_ARGUMENT,
			"Request is trying to write to node with uuid : "+req.GetDatanodeUuid()+
				" but the current nodeId is: "+d.uuidText+" ."), nil
	}
	if ms := echo.GetSleepTimeMs(); ms > 0 {
		if err := sleep(ctx, time.Duration(ms)*time.Millisecond); err != nil {
			return nil, err
		}
	}
	n := echo.GetPayloadSizeResp()
	if n < 0 {
		return failure(req, dnpb.Result_CONTAINER_INTERNAL_ERROR, msgNegativeSize), nil
	}
	if int(n) > d.maxResponsePayload {
		// A real DN would build the payload and let the client's 32 MiB
		// receive limit reject it; the emulator refuses to allocate it.
		return nil, status.Errorf(codes.ResourceExhausted,
			"dnsim: payloadSizeResp %d exceeds the emulator limit %d", n, d.maxResponsePayload)
	}
	resp := response(req, dnpb.Result_SUCCESS)
	resp.Echo = &dnpb.EchoResponseProto{Payload: randomPayload(int(n))}
	return resp, nil
}

// sleep waits for d or until the stream ends (client cancel, server stop).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}
