package ratis

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Error is a Raft exception that ended a call: an exception in a reply (a write the leader
// rejected, an apply that failed, a watch not replicated), or the last NotLeader or
// LeaderNotReady when the retry policy gave up.
type Error struct {
	DataNode datanode.DataNode
	// Class is the Java exception class ("...ContainerNotOpenException").
	Class   string
	Message string
	// LogIndex is the log entry of a write whose apply failed (0 otherwise).
	LogIndex uint64
}

func (e *Error) Error() string {
	s := fmt.Sprintf("datanode %s (%s): %s: %s", e.DataNode.UUID, e.DataNode.Addr, ratispb.SimpleName(e.Class), e.Message)
	if e.LogIndex != 0 {
		s += fmt.Sprintf(" (log index %d)", e.LogIndex)
	}
	return s
}

// Label names the outcome by the exception's simple class name ("ContainerNotOpenException").
func (e *Error) Label() string { return ratispb.SimpleName(e.Class) }

// StreamError is an ordered stream that ended with a gRPC status while calls were in flight:
// a broken connection, or a request the DataNode refused (status INTERNAL with the Java class in
// the exception-type trailer), or status OK with calls unanswered (which wraps
// datanode.ErrNoReply). status.Code works on it.
type StreamError struct {
	DataNode    datanode.DataNode
	Code        codes.Code
	Class       string // exception-type trailer; "" when none was sent
	Description string
	err         error
}

func (e *StreamError) Error() string {
	what := e.Description
	if e.Class != "" {
		what = ratispb.SimpleName(e.Class) + ": " + what
	}
	return fmt.Sprintf("datanode %s (%s): ordered stream ended with %s: %s", e.DataNode.UUID, e.DataNode.Addr, datanode.CodeName(e.Code), what)
}

// GRPCStatus makes status.Code and status.Convert see the stream's status.
func (e *StreamError) GRPCStatus() *status.Status { return status.New(e.Code, e.Description) }

func (e *StreamError) Unwrap() error { return e.err }

// ErrClosed is returned by calls on a closed Client (the same error as the gRPC client's).
var ErrClosed = datanode.ErrClosed

// errNoRetry marks an Error built from a NotLeader or LeaderNotReady the policy gave up on.
var errNoRetry = errors.New("no more retries")
