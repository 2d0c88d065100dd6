package hadooprpc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dnecho/dnecho/proto/hadooppb"
)

// ErrorCode is RpcResponseHeaderProto.errorDetail.
type ErrorCode = hadooppb.RpcResponseHeaderProto_RpcErrorCodeProto

// Error codes (docs/hadoop-rpc.md#rpcresponseheaderproto). ERROR_* leave the connection open,
// FATAL_* close it.
const (
	ErrorApplication          = hadooppb.RpcResponseHeaderProto_ERROR_APPLICATION
	ErrorNoSuchMethod         = hadooppb.RpcResponseHeaderProto_ERROR_NO_SUCH_METHOD
	ErrorNoSuchProtocol       = hadooppb.RpcResponseHeaderProto_ERROR_NO_SUCH_PROTOCOL
	ErrorRPCServer            = hadooppb.RpcResponseHeaderProto_ERROR_RPC_SERVER
	ErrorSerializingResponse  = hadooppb.RpcResponseHeaderProto_ERROR_SERIALIZING_RESPONSE
	FatalUnknown              = hadooppb.RpcResponseHeaderProto_FATAL_UNKNOWN
	FatalInvalidRPCHeader     = hadooppb.RpcResponseHeaderProto_FATAL_INVALID_RPC_HEADER
	FatalDeserializingRequest = hadooppb.RpcResponseHeaderProto_FATAL_DESERIALIZING_REQUEST
	FatalVersionMismatch      = hadooppb.RpcResponseHeaderProto_FATAL_VERSION_MISMATCH
	FatalUnauthorized         = hadooppb.RpcResponseHeaderProto_FATAL_UNAUTHORIZED
)

// RemoteError is an ERROR or FATAL reply: a Java exception thrown by the server.
// The emulator's server (minicluster/rpcserver) answers one a handler returns with its class and code.
type RemoteError struct {
	// Class is the fully qualified Java class, e.g.
	// "org.apache.hadoop.hdds.scm.container.ContainerNotFoundException".
	Class string
	// Message is errorMsg: the exception text, usually followed by a Java stack trace.
	Message string
	// Detail is errorDetail; zero when the server sent none.
	Detail ErrorCode
	// Fatal is true for status FATAL: the server closed the connection and
	// every call outstanding on it failed with this error.
	Fatal bool
}

func (e *RemoteError) Error() string {
	kind := "error"
	if e.Fatal {
		kind = "fatal"
	}
	return fmt.Sprintf("remote %s %s: %s", kind, e.Class, FirstLine(e.Message))
}

// SimpleName is the class name after the last '.', so "ipc." and "ipc_."
// servers compare equal: "org.apache.hadoop.ipc_.RPC$VersionMismatch" → "RPC$VersionMismatch".
func (e *RemoteError) SimpleName() string { return SimpleClassName(e.Class) }

// SimpleClassName returns the text after the last '.' of a Java class name.
func SimpleClassName(class string) string {
	return class[strings.LastIndexByte(class, '.')+1:]
}

// FirstLine returns s up to its first line break: the exception text without
// the stack trace.
func FirstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// RemoteClass returns the simple class name of the RemoteError in err's
// chain, or "" when there is none.
func RemoteClass(err error) string {
	var re *RemoteError
	if errors.As(err, &re) {
		return re.SimpleName()
	}
	return ""
}

// IsRemoteClass reports whether err carries a RemoteError whose simple class
// name is one of names (compare "AccessControlException", not the package).
func IsRemoteClass(err error, names ...string) bool {
	c := RemoteClass(err)
	for _, n := range names {
		if c != "" && c == SimpleClassName(n) {
			return true
		}
	}
	return false
}

// ConnError is a connection-level failure: dial, EOF, reset, timeout while
// writing, or a server that broke the wire protocol. Every call outstanding on
// the connection fails with it; the next call dials again.
type ConnError struct {
	Addr string
	Op   string // "dial", "handshake", "write", "read"
	Err  error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("hadooprpc %s %s: %v", e.Op, e.Addr, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }

// SilenceError is the cause of a call bounded by CallWithin that heard nothing from the server:
// no connection, or no byte of the reply, within After. A hung server looks like this (a stopped
// process whose kernel still completes TCP handshakes and takes the request), and so does one too
// busy to answer in time: a client cannot tell them apart, since a Hadoop server sends nothing
// before its reply.
type SilenceError struct {
	After time.Duration
	// Connecting is true when the connection (TCP and handshake) was not made in time.
	Connecting bool
}

func (e *SilenceError) Error() string {
	if e.Connecting {
		return fmt.Sprintf("no connection within %s", e.After)
	}
	return fmt.Sprintf("no answer within %s", e.After)
}

// Timeout marks it as a timeout for net.Error-style checks.
func (e *SilenceError) Timeout() bool { return true }

// ErrBadResponse is wrapped by errors for replies that cannot be used: a
// length out of range, trailing bytes, or a body that does not decode. The
// Java SCM client does not fail over on these (docs/ozone-scm.md#retry-decision).
var ErrBadResponse = errors.New("bad RPC response")

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("hadooprpc: client closed")

// AuthError is a SASL exchange the server answered but that cannot succeed by trying again: the
// server's principal is not the configured one, the two sides share no protection, the server
// offers no mechanism this client has, the KDC refused a ticket for the server, or the server's
// answer does not prove its identity. Failover policies give up on it at once.
type AuthError struct {
	Addr string
	Err  error
}

func (e *AuthError) Error() string { return fmt.Sprintf("authentication to %s: %v", e.Addr, e.Err) }

func (e *AuthError) Unwrap() error { return e.Err }
