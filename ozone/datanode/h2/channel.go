package h2

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Defaults of a Config.
const (
	// DefaultConnectTimeout bounds dialling and the TLS handshake, as grpc-go's minimum connect
	// timeout does.
	DefaultConnectTimeout = 20 * time.Second
	// DefaultMaxRecvMsgSize is grpc-go's default receive limit.
	DefaultMaxRecvMsgSize = 4 << 20
	// DefaultUserAgent is sent as user-agent.
	DefaultUserAgent = "dnecho-h2"
)

// Reconnection back-off after a failed dial: grpc's connection-backoff.md values (1 s, ×1.6,
// ±20% jitter, at most 120 s), which grpc-go follows.
const (
	backoffBase   = time.Second
	backoffFactor = 1.6
	backoffJitter = 0.2
	backoffMax    = 120 * time.Second
)

// Config describes the server and method of a Channel.
type Config struct {
	// Addr is the "host:port" dialled.
	Addr string
	// Authority is the :authority of every request; Addr when empty.
	Authority string
	// Path is the method's :path, "/package.Service/Method".
	Path string
	// TLS turns TLS on; its NextProtos are replaced by "h2" and the server must select it.
	// ServerName should be set (the host of Authority, as grpc-go checks it).
	TLS *tls.Config
	// Dial opens the TCP connection; a net.Dialer with the OS's keepalive when nil.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// ConnectTimeout bounds a dial with its handshake; DefaultConnectTimeout when zero.
	ConnectTimeout time.Duration
	// Timeout is the usual per-call timeout: a call with it sends a header block that is all
	// indexes into the connection's HPACK table. Other timeouts cost a few more bytes.
	Timeout time.Duration
	// MaxRecvMsgSize is the largest message accepted; DefaultMaxRecvMsgSize when zero.
	MaxRecvMsgSize int
	// UserAgent is sent as user-agent; DefaultUserAgent when empty.
	UserAgent string
}

// Channel is one server's connection, made on first use and again after it is lost or the
// server sent GOAWAY. Calls made while a dial fails fail at once with UNAVAILABLE until the
// back-off has passed, as a grpc-go channel in TRANSIENT_FAILURE fails them.
type Channel struct {
	cfg Config
	cur atomic.Pointer[conn]

	ctx    context.Context // cancelled by Close: ends dials
	cancel context.CancelFunc
	wg     sync.WaitGroup // every connection's reader and writer, and dials

	mu      sync.Mutex
	dialing chan struct{} // closed when the dial in progress ends
	failed  error         // the last dial's error, returned until retryAt
	retryAt time.Time
	backoff time.Duration
	conns   map[*conn]struct{}
	closed  bool
}

// ErrClosed is the error of calls on a closed Channel (grpc-go's text for a closing channel).
var ErrClosed = status.Error(codes.Canceled, "grpc: the client connection is closing")

// NewChannel checks cfg; it does not dial.
func NewChannel(cfg Config) (*Channel, error) {
	if cfg.Addr == "" || cfg.Path == "" {
		return nil, errors.New("h2: Config needs Addr and Path")
	}
	if cfg.Authority == "" {
		cfg.Authority = cfg.Addr
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxRecvMsgSize <= 0 {
		cfg.MaxRecvMsgSize = DefaultMaxRecvMsgSize
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.TLS != nil {
		cfg.TLS = cfg.TLS.Clone()
		cfg.TLS.NextProtos = []string{alpnH2}
	}
	if cfg.Dial == nil {
		d := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}}
		cfg.Dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	ch := &Channel{cfg: cfg, conns: map[*conn]struct{}{}}
	ch.ctx, ch.cancel = context.WithCancel(context.Background())
	return ch, nil
}

// alpnH2 is HTTP/2's ALPN protocol id over TLS (RFC 9113, section 3.2).
const alpnH2 = "h2"

// Close ends every connection and waits for their goroutines; calls in flight fail with
// ErrClosed.
func (ch *Channel) Close() error {
	ch.mu.Lock()
	if ch.closed {
		ch.mu.Unlock()
		return nil
	}
	ch.closed = true
	conns := make([]*conn, 0, len(ch.conns))
	for c := range ch.conns {
		conns = append(conns, c)
	}
	ch.mu.Unlock()
	ch.cancel()
	for _, c := range conns {
		c.fail(ErrClosed)
	}
	ch.wg.Wait()
	return nil
}

// conn returns a usable connection, dialling one when there is none. The wait is bounded by
// ctx and timeout.
func (ch *Channel) conn(ctx context.Context, timeout time.Duration) (*conn, error) {
	if c := ch.cur.Load(); c != nil && c.usable.Load() {
		return c, nil
	}
	return ch.connSlow(ctx, timeout)
}

func (ch *Channel) connSlow(ctx context.Context, timeout time.Duration) (*conn, error) {
	var deadline <-chan time.Time
	for {
		ch.mu.Lock()
		if ch.closed {
			ch.mu.Unlock()
			return nil, ErrClosed
		}
		if c := ch.cur.Load(); c != nil && c.usable.Load() {
			ch.mu.Unlock()
			return c, nil
		}
		if ch.dialing == nil {
			if ch.failed != nil && time.Now().Before(ch.retryAt) {
				err := ch.failed
				ch.mu.Unlock()
				return nil, err
			}
			ch.dialing = make(chan struct{})
			ch.wg.Add(1)
			go ch.dial(ch.dialing)
		}
		wait := ch.dialing
		ch.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(timeout)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-deadline:
			return nil, errDeadline
		}
	}
}

// dial makes a connection and publishes it, or the failure and the next retry time.
func (ch *Channel) dial(done chan struct{}) {
	defer ch.wg.Done()
	ctx, cancel := context.WithTimeout(ch.ctx, ch.cfg.ConnectTimeout)
	c, err := ch.connect(ctx)
	cancel()
	ch.mu.Lock()
	defer ch.mu.Unlock()
	defer close(done)
	ch.dialing = nil
	if err == nil && ch.closed {
		err = ErrClosed
		c.fail(ErrClosed)
	}
	if err != nil {
		if ch.backoff == 0 {
			ch.backoff = backoffBase
		} else {
			ch.backoff = min(time.Duration(float64(ch.backoff)*backoffFactor), backoffMax)
		}
		jitter := 1 + backoffJitter*(2*rand.Float64()-1)
		ch.retryAt = time.Now().Add(time.Duration(float64(ch.backoff) * jitter))
		ch.failed = status.Errorf(codes.Unavailable, "connection error: %v", err)
		return
	}
	ch.failed, ch.backoff = nil, 0
	ch.cur.Store(c)
}

// connect dials, shakes hands and starts the connection's goroutines.
func (ch *Channel) connect(ctx context.Context) (*conn, error) {
	nc, err := ch.cfg.Dial(ctx, ch.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", ch.cfg.Addr, err)
	}
	if ch.cfg.TLS != nil {
		tc := tls.Client(nc, ch.cfg.TLS)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", ch.cfg.Addr, err)
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != alpnH2 {
			_ = nc.Close()
			return nil, fmt.Errorf("TLS to %s: the server selected ALPN protocol %q, not %q", ch.cfg.Addr, p, alpnH2)
		}
		nc = tc
	}
	c := newConn(ch, nc)
	if err := c.start(); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("HTTP/2 preface to %s: %w", ch.cfg.Addr, err)
	}
	ch.mu.Lock()
	ch.conns[c] = struct{}{}
	ch.mu.Unlock()
	ch.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c, nil
}

// retire stops new calls from using c.
func (ch *Channel) retire(c *conn) {
	c.usable.Store(false)
	ch.cur.CompareAndSwap(c, nil)
}

// forget drops a closed connection.
func (ch *Channel) forget(c *conn) {
	ch.mu.Lock()
	delete(ch.conns, c)
	ch.mu.Unlock()
}
