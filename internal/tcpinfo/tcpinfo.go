// Package tcpinfo reads the kernel's view of a TCP connection (Linux TCP_INFO): the smoothed
// round-trip time, its variance, the windowed minimum and the retransmission count. A read is
// one getsockopt system call; callers sample it from one goroutine rather than on every request
// (docs/network.md).
package tcpinfo

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrUnsupported is returned when the platform or the connection cannot give TCP_INFO: not
// Linux, or not a TCP connection.
var ErrUnsupported = errors.New("tcpinfo: TCP_INFO unsupported")

// Info is one reading of a connection. Field facts: Linux include/uapi/linux/tcp.h, struct
// tcp_info, and tcp(7).
type Info struct {
	// RTT is the smoothed round-trip time (tcpi_rtt, microseconds in the kernel).
	RTT time.Duration
	// RTTVar is the round-trip time's mean deviation (tcpi_rttvar, microseconds).
	RTTVar time.Duration
	// MinRTT is the smallest round-trip time seen over the kernel's window (tcpi_min_rtt,
	// microseconds; Linux 4.6 and later); 0 when the kernel has none (no sample yet, or an
	// older kernel).
	MinRTT time.Duration
	// TotalRetrans is the number of segments retransmitted over the connection's life
	// (tcpi_total_retrans); it only grows.
	TotalRetrans uint64
}

// UnsupportedError says why a connection cannot be read; errors.Is(err, ErrUnsupported) holds.
type UnsupportedError struct {
	Reason string
}

func (e *UnsupportedError) Error() string { return "tcpinfo: TCP_INFO unsupported: " + e.Reason }

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// Read reads c's TCP_INFO. c may be a *net.TCPConn or wrap one: a *tls.Conn, or any conn with a
// NetConn() net.Conn method (the convention *tls.Conn set). Anything else, and every conn on a
// platform other than Linux, gives an error that Is ErrUnsupported; a closed conn gives an error
// that Is net.ErrClosed.
func Read(c net.Conn) (Info, error) {
	tc, err := tcpConn(c)
	if err != nil {
		return Info{}, err
	}
	return read(tc)
}

// tcpConn unwraps c down to its TCP connection.
func tcpConn(c net.Conn) (*net.TCPConn, error) {
	// A bound, not a loop until nil: a wrapper returning itself must not hang a sampler.
	for range 8 {
		switch v := c.(type) {
		case nil:
			return nil, &UnsupportedError{Reason: "no connection"}
		case *net.TCPConn:
			return v, nil
		case *tls.Conn:
			c = v.NetConn()
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil, &UnsupportedError{Reason: fmt.Sprintf("%T is not a TCP connection", c)}
		}
	}
	return nil, &UnsupportedError{Reason: "connection wrapped more than 8 times"}
}
