package h2

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Errors are gRPC status errors (status.Code reads them), as grpc-go's are, so that a caller
// treats both transports alike; io.EOF is a stream that ended with status OK before any
// message, as grpc-go's RecvMsg reports it.

// rstCode is the gRPC code of a stream the server reset (PROTOCOL-HTTP2.md, Errors; as grpc-go
// maps them, FLOW_CONTROL_ERROR is RESOURCE_EXHAUSTED there).
func rstCode(code http2.ErrCode) codes.Code {
	switch code {
	case http2.ErrCodeRefusedStream:
		return codes.Unavailable
	case http2.ErrCodeCancel:
		return codes.Canceled
	case http2.ErrCodeEnhanceYourCalm, http2.ErrCodeFlowControl:
		return codes.ResourceExhausted
	case http2.ErrCodeInadequateSecurity:
		return codes.PermissionDenied
	}
	return codes.Internal
}

func rstError(code http2.ErrCode) error {
	return status.Errorf(rstCode(code), "stream terminated by RST_STREAM with error code: %v", code)
}

// httpCode is the gRPC code of a response that is not gRPC, by its HTTP status (grpc's
// doc/http-grpc-status-mapping.md).
func httpCode(s int) codes.Code {
	switch s {
	case http.StatusBadRequest:
		return codes.Internal
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.Unimplemented
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return codes.Unavailable
	}
	return codes.Unknown
}

// errUnprocessed marks a call the server never processed (its stream was refused, above a
// GOAWAY's last stream id, or never written): it may go again on another connection.
type errUnprocessed struct{ err error }

func (e *errUnprocessed) Error() string { return e.err.Error() }
func (e *errUnprocessed) Unwrap() error { return e.err }

// GRPCStatus lets status.Code and status.Convert see the status inside.
func (e *errUnprocessed) GRPCStatus() *status.Status { return status.Convert(e.err) }

func unprocessed(format string, args ...any) error {
	return &errUnprocessed{status.Errorf(codes.Unavailable, format, args...)}
}

func isUnprocessed(err error) bool {
	var u *errUnprocessed
	return errors.As(err, &u)
}

// errDeadline is the error of a call whose time ran out, as grpc-go reports a context's deadline.
var errDeadline = status.Error(codes.DeadlineExceeded, "context deadline exceeded")

// errNoTrailers is a stream the server ended with DATA instead of trailers.
var errNoTrailers = status.Error(codes.Internal, "server closed the stream without sending trailers")

// streamStatus is the outcome of a stream ended by trailers: io.EOF for OK (the caller saw no
// message), else the server's status and its decoded message.
func streamStatus(code codes.Code, msg string) error {
	if code == codes.OK {
		return io.EOF
	}
	return status.Error(code, msg)
}

// decodeMessage undoes grpc-message's percent-encoding (PROTOCOL-HTTP2.md, Responses); a
// malformed escape is kept as it is, as the document allows.
func decodeMessage(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// timeoutUnits are grpc-timeout's units, finest first (PROTOCOL-HTTP2.md, Requests).
var timeoutUnits = [...]struct {
	d    time.Duration
	unit byte
}{{time.Nanosecond, 'n'}, {time.Microsecond, 'u'}, {time.Millisecond, 'm'}, {time.Second, 'S'}, {time.Minute, 'M'}, {time.Hour, 'H'}}

// maxTimeoutValue is the largest TimeoutValue: at most 8 digits.
const maxTimeoutValue = 99999999

// appendTimeout appends d as a grpc-timeout value in the finest unit whose value has at most 8
// digits, rounded up so that the server never sees a shorter deadline than the client's.
func appendTimeout(b []byte, d time.Duration) []byte {
	if d <= 0 {
		return append(b, '0', 'n')
	}
	for _, u := range timeoutUnits {
		v := (d + u.d - 1) / u.d
		if v <= maxTimeoutValue {
			return append(strconv.AppendInt(b, int64(v), 10), u.unit)
		}
	}
	return append(b, fmt.Sprint(maxTimeoutValue)+"H"...)
}
