package echo

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/proto/dnpb"
)

// Labels that are neither an Ozone result nor a gRPC status.
const (
	// LabelSuccess is a call the DataNode answered with SUCCESS.
	LabelSuccess = "SUCCESS"
	// LabelNoReply: the stream ended with status OK but without a response (the Java client's
	// "Stream completed but no reply for request").
	LabelNoReply = "NO_REPLY"
)

// Result describes one Echo call, successful or not.
type Result struct {
	// Latency is the measured interval of the call; see the package documentation.
	Latency time.Duration
	// Label names the outcome: LabelSuccess, the Ozone result of a failed answer
	// ("CONTAINER_NOT_FOUND"), the canonical gRPC status of a failed attempt ("UNAVAILABLE"),
	// the simple class name of a Raft exception ("ContainerNotOpenException", "NotLeaderException"
	// when the retries ran out), or LabelNoReply.
	Label string
	// Message is the DataNode's or gRPC's message of a failure, or the error's text when no
	// DataNode was reached; "" on success.
	Message string
	// Err is nil on success; otherwise an *datanode.EchoError, a gRPC status error, over Ratis
	// a *ratis.Error or *ratis.StreamError, or another error that kept the call from being made.
	Err error
	// DataNode is the member the last attempt went to.
	DataNode datanode.DataNode
	// Pipeline is the id of the pipeline the call went to: the session's, which changes when it
	// moves to another pipeline (a re-resolution).
	Pipeline string
	// BytesSent and BytesReceived count protobuf message bytes over all attempts.
	BytesSent, BytesReceived int
	// Attempts is the number of members tried.
	Attempts int
	// Earlier are the attempts before the last, each with its own part of Latency, over gRPC;
	// nil for a call of one attempt, and over Ratis, whose client retries inside one Raft call.
	Earlier []Attempt
	// Interrupted means the caller's context ended and the call failed because of it: it says
	// nothing about the DataNode and is not a measurement (freon does not count it, the JS module
	// emits no sample for it).
	Interrupted bool
}

// Attempt is one failed attempt of a call that went on to another DataNode.
type Attempt struct {
	DataNode datanode.DataNode
	// Latency is the attempt's own part of the call's Latency (datanode.Attempt.Took).
	Latency time.Duration
	// Label names its outcome, as Result.Label does the last attempt's.
	Label string
}

// LastLatency is the last attempt's own part of Latency: all of it for a call of one attempt.
func (r Result) LastLatency() time.Duration {
	t := r.Latency
	for _, a := range r.Earlier {
		t -= a.Latency
	}
	return t
}

// OK reports whether the DataNode answered with SUCCESS.
func (r Result) OK() bool { return r.Err == nil }

// newResult turns a datanode call into a Result.
func newResult(ctx context.Context, res datanode.Result, err error) Result {
	r := Result{
		Latency: res.RTT, Err: err, DataNode: res.DataNode,
		BytesSent: res.BytesSent, BytesReceived: res.BytesReceived, Attempts: res.Attempts,
		Label: label(res, err),
	}
	if len(res.Earlier) > 0 {
		r.Earlier = make([]Attempt, len(res.Earlier))
		for i, a := range res.Earlier {
			r.Earlier[i] = Attempt{DataNode: a.DataNode, Latency: a.Took, Label: attemptLabel(a)}
		}
	}
	if err != nil {
		r.Message = res.Message
		if r.Message == "" {
			r.Message = err.Error()
		}
		r.Interrupted = ctx.Err() != nil
	}
	return r
}

// failed is the Result of a call that could not be made at all (a closed session).
func failed(ctx context.Context, err error) Result {
	return newResult(ctx, datanode.Result{}, err)
}

// label names the outcome of a call: the Ozone result when the DataNode answered, else the gRPC
// status of the last attempt.
func label(res datanode.Result, err error) string {
	switch {
	case err == nil:
		return LabelSuccess
	case res.GRPCCode != codes.OK:
		return datanode.CodeName(res.GRPCCode)
	case res.Code != 0:
		return resultName(res.Code)
	case errors.Is(err, datanode.ErrNoReply):
		return LabelNoReply
	case raftLabel(err) != "":
		return raftLabel(err)
	case errors.Is(err, datanode.ErrClosed), errors.Is(err, context.Canceled):
		return datanode.CodeName(codes.Canceled)
	case errors.Is(err, context.DeadlineExceeded):
		return datanode.CodeName(codes.DeadlineExceeded)
	}
	return datanode.CodeName(status.Code(err))
}

// attemptLabel names the outcome of a failed attempt as label does a call's: the gRPC status, else
// the Ozone result of its answer, else no reply.
func attemptLabel(a datanode.Attempt) string {
	switch {
	case a.GRPCCode != codes.OK:
		return datanode.CodeName(a.GRPCCode)
	case a.Code != 0:
		return resultName(a.Code)
	}
	return LabelNoReply
}

// resultName is an Ozone result's name as the labels show it.
func resultName(c dnpb.Result) string {
	if name, ok := dnpb.Result_name[int32(c)]; ok {
		return name
	}
	return c.String()
}

// raftLabel is the label of a Raft exception in err's chain, "" when there is none. It is a
// function of its own so that the success path of label allocates nothing.
func raftLabel(err error) string {
	var e *ratis.Error
	if errors.As(err, &e) {
		return e.Label()
	}
	return ""
}
