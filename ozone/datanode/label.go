package datanode

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// codeNames are the canonical gRPC status names (grpc/grpc: doc/statuscodes.md), which is how
// Java clients and Ozone's logs spell them; grpc-go's Code.String uses CamelCase instead.
var codeNames = [...]string{
	codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN",
	codes.InvalidArgument: "INVALID_ARGUMENT", codes.DeadlineExceeded: "DEADLINE_EXCEEDED",
	codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
	codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED",
	codes.OutOfRange: "OUT_OF_RANGE", codes.Unimplemented: "UNIMPLEMENTED",
	codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE", codes.DataLoss: "DATA_LOSS",
	codes.Unauthenticated: "UNAUTHENTICATED",
}

// CodeName returns the canonical upper-case name of a gRPC status code ("UNAVAILABLE").
func CodeName(c codes.Code) string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return c.String()
}

// Label names the outcome of a call for metrics and breakdowns: the Ozone result name when the
// DataNode answered ("SUCCESS", "CONTAINER_NOT_FOUND", ...), else the canonical gRPC status name
// ("UNAVAILABLE", "DEADLINE_EXCEEDED", ...).
func (r Result) Label() string {
	if r.Result != 0 {
		return r.Result.String()
	}
	if r.GRPCCode == codes.OK && r.Message != "" {
		return "NO_REPLY" // the stream ended without a response (ErrNoReply)
	}
	return CodeName(r.GRPCCode)
}

// ErrorLabel names a failed call from its error alone, like Result.Label.
func ErrorLabel(err error) string {
	var ee *EchoError
	switch {
	case err == nil:
		return "SUCCESS"
	case errors.As(err, &ee):
		return ee.Result.String()
	case errors.Is(err, ErrNoReply):
		return "NO_REPLY"
	case errors.Is(err, context.Canceled):
		return CodeName(codes.Canceled)
	case errors.Is(err, context.DeadlineExceeded):
		return CodeName(codes.DeadlineExceeded)
	}
	if st, ok := status.FromError(err); ok {
		return CodeName(st.Code())
	}
	return CodeName(status.Code(err))
}
