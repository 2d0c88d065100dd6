package datanode

import (
	"context"
	"net"
	"sync"
	"syscall"
)

// ConnWatcher hears of every TCP connection a client opens to a DataNode, so that the kernel's
// view of it can be sampled (ozone/echo's WatchNetwork). Both gRPC transports use it.
type ConnWatcher interface {
	// Opened is called with each new connection to node, before gRPC uses it. closed is called
	// once, just before the connection is closed, while it can still be read.
	Opened(node DataNode, c net.Conn) (closed func())
}

// Dialer is the gRPC context dialer (grpc.WithContextDialer) that reports each connection to
// node to w. It dials as grpc-go does without a dialer of its own: TCP, with keepalive on at
// the OS's times (grpc-go: internal/tcp_keepalive_unix.go, NetDialerWithTCPKeepalive). gRPC
// passes the address unresolved with the passthrough scheme both clients use, and bounds the
// dial with ctx (the connect deadline); TLS, when on, is layered over the returned conn by the
// channel's transport credentials, as before.
func Dialer(node DataNode, w ConnWatcher) func(context.Context, string) (net.Conn, error) {
	d := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil || w == nil {
			return c, err
		}
		return &watchedConn{Conn: c, closed: w.Opened(node, c)}, nil
	}
}

// watchedConn tells its watcher when it closes.
type watchedConn struct {
	net.Conn
	once   sync.Once
	closed func()
}

func (c *watchedConn) Close() error {
	c.once.Do(c.closed)
	return c.Conn.Close()
}

// NetConn returns the connection underneath, as *tls.Conn's method does.
func (c *watchedConn) NetConn() net.Conn { return c.Conn }

// SyscallConn keeps what gRPC reads from the socket (channelz's socket options) available
// through the wrapper.
func (c *watchedConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, syscall.EINVAL
}
