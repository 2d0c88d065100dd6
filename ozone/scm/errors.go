package scm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// ErrContainerNotFound matches (errors.Is) the SCM's ContainerNotFoundException.
var ErrContainerNotFound = errors.New("container not found")

// ErrNoPipeline matches a container that echo cannot reach: it has no
// pipeline id, its pipeline is not listed, or the pipeline has no members.
// (freon's DN echo test dies with a NullPointerException here.)
var ErrNoPipeline = errors.New("container has no live pipeline")

// ErrRetriesExhausted is the reason in an UnreachableError whose retry budget ran out.
var ErrRetriesExhausted = errors.New("retry budget exhausted")

// notFoundError carries the SCM's own text, e.g. "Container #7 not found".
type notFoundError struct{ remote *hadooprpc.RemoteError }

func (e *notFoundError) Error() string        { return hadooprpc.FirstLine(e.remote.Message) }
func (e *notFoundError) Is(target error) bool { return target == ErrContainerNotFound }
func (e *notFoundError) Unwrap() error        { return e.remote }

type noPipelineError struct {
	id    uint64
	state string
	why   string
}

func (e *noPipelineError) Error() string {
	return fmt.Sprintf("container %d has no live pipeline (state %s; %s); echo needs an OPEN container whose pipeline exists",
		e.id, e.state, e.why)
}
func (e *noPipelineError) Is(target error) bool { return target == ErrNoPipeline }

// superuserText is the SCM's admin-check denial (docs/ozone-scm.md#admin-checks).
const superuserText = "SCM superuser privilege is required"

// AccessDeniedError is an AccessControlException from SCM: the user is not
// an Ozone administrator, or the server refused the authentication method.
// The Java client never retries it.
type AccessDeniedError struct {
	Addr   string
	Op     string
	User   string
	Remote *hadooprpc.RemoteError
}

func (e *AccessDeniedError) Error() string {
	msg := hadooprpc.FirstLine(e.Remote.Message)
	if strings.Contains(msg, superuserText) {
		return fmt.Sprintf("scm %s: %s: access denied: user %q is not an Ozone administrator "+
			"(GetContainer and GetContainerToken need SCM admin rights: add the user to ozone.administrators "+
			"or run as an administrator): %s", e.Addr, e.Op, e.User, msg)
	}
	if strings.Contains(msg, "SIMPLE authentication is not enabled") {
		return fmt.Sprintf("scm %s: %s: access denied: the SCM requires Kerberos, this client used SIMPLE auth: %s", e.Addr, e.Op, msg)
	}
	return fmt.Sprintf("scm %s: %s: access denied: %s", e.Addr, e.Op, msg)
}

func (e *AccessDeniedError) Unwrap() error { return e.Remote }

// NodeError is the last failure seen on one SCM.
type NodeError struct {
	Node
	Err error // nil if the node was never tried
}

// UnreachableError means no SCM gave an answer within the retry budget or
// before the context ended. Err says which (ErrRetriesExhausted or the
// context's error); Nodes holds each address's last failure.
type UnreachableError struct {
	Op       string
	Attempts int
	Nodes    []NodeError
	Err      error
}

func (e *UnreachableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scm: %s: no SCM answered after %d attempt(s): %v", e.Op, e.Attempts, e.Err)
	for _, n := range e.Nodes {
		cause := "not tried"
		if n.Err != nil {
			cause = n.Err.Error()
		}
		fmt.Fprintf(&b, "; %s: %s", n.Node, cause)
	}
	return b.String()
}

func (e *UnreachableError) Unwrap() error { return e.Err }
