package hadooprpc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// Client calls one Hadoop RPC server. It keeps one connection per protocol
// (the connection context names the protocol, as in Java) and multiplexes
// concurrent calls on it. A Client is safe for concurrent use.
type Client struct {
	addr   string
	opts   Options
	nextID atomic.Uint32

	mu      sync.Mutex
	closed  bool
	conns   map[string]*conn
	dialing map[string]*dialWait
}

// dialWait lets concurrent first callers share one dial.
type dialWait struct {
	done chan struct{}
	err  error
}

// NewClient returns a client for the server at addr ("host:port"). It does
// not connect until the first call.
func NewClient(addr string, opts Options) (*Client, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{addr: addr, opts: o, conns: map[string]*conn{}, dialing: map[string]*dialWait{}}, nil
}

// NewClients returns a client for each address (the nodes of an HA group), all with opts. On an
// error none is left open.
func NewClients(addrs []string, opts Options) ([]*Client, error) {
	var out []*Client
	for _, a := range addrs {
		c, err := NewClient(a, opts)
		if err != nil {
			CloseAll(out)
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// CloseAll closes every client.
func CloseAll(cs []*Client) {
	for _, c := range cs {
		c.Close()
	}
}

// Addr returns the server address the client dials.
func (c *Client) Addr() string { return c.addr }

// Call invokes method of protocol with req and decodes the reply into resp.
// Errors: *RemoteError for ERROR/FATAL replies, *ConnError for connection
// failures (wrapping ErrBadResponse when the reply was malformed), the
// context's error when ctx ends first.
func (c *Client) Call(ctx context.Context, protocol, method string, req, resp proto.Message) error {
	return c.CallWithin(ctx, 0, protocol, method, req, resp)
}

// CallWithin is Call bounded by the server's silence: while it waits, the call fails with a
// *ConnError wrapping a *SilenceError once nothing has come from the server for quiet, counted
// from the call's start (dialling and handshake included) or from the last byte received. A
// reply that keeps arriving is never cut; a server that stops sending is. The connection is
// closed then, failing its other calls too, as Java's client closes it when its rpc timeout
// fires (docs/hadoop-rpc.md#pings-and-timeouts). quiet <= 0 is Call: no bound but ctx.
func (c *Client) CallWithin(ctx context.Context, quiet time.Duration, protocol, method string, req, resp proto.Message) error {
	w := wait{start: time.Now(), quiet: quiet}
	// Java masks a JVM-wide counter to keep ids non-negative (docs/hadoop-rpc.md#call-ids).
	id := int32((c.nextID.Add(1) - 1) & 0x7fffffff)
	frame, err := wire.AppendFrame(nil,
		wire.RequestHeader(id, c.opts.ClientID, 0),
		&hadooppb.RequestHeaderProto{
			MethodName:                 &method,
			DeclaringClassProtocolName: &protocol,
			ClientProtocolVersion:      &c.opts.ProtocolVersion,
		},
		req)
	if err != nil {
		return fmt.Errorf("hadooprpc: %s.%s: %w", protocol, method, err)
	}
	var r *response
	for {
		cn, err := c.connWithin(ctx, protocol, w)
		if err != nil {
			return err
		}
		r, err = cn.call(ctx, id, frame, w)
		if errors.Is(err, errConnGone) {
			continue // closed for idleness just before we registered; dial again
		}
		if err != nil {
			return err
		}
		break
	}
	if err := proto.Unmarshal(r.body, resp); err != nil {
		return &ConnError{Addr: c.addr, Op: "read", Err: fmt.Errorf("%w: %s.%s reply: %v", ErrBadResponse, protocol, method, err)}
	}
	return nil
}

// connWithin is conn bounded by the call's quiet time: no connection within it is a silence.
func (c *Client) connWithin(ctx context.Context, protocol string, w wait) (*conn, error) {
	if w.quiet <= 0 {
		return c.conn(ctx, protocol)
	}
	dctx, cancel := context.WithDeadline(ctx, w.start.Add(w.quiet))
	defer cancel()
	cn, err := c.conn(dctx, protocol)
	if err != nil && ctx.Err() == nil && dctx.Err() != nil {
		return nil, &ConnError{Addr: c.addr, Op: "dial", Err: &SilenceError{After: w.quiet, Connecting: true}}
	}
	return cn, err
}

// conn returns the live connection for protocol, dialling it if needed.
func (c *Client) conn(ctx context.Context, protocol string) (*conn, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if cn := c.conns[protocol]; cn != nil && !cn.isClosed() {
			c.mu.Unlock()
			return cn, nil
		}
		if w := c.dialing[protocol]; w != nil {
			c.mu.Unlock()
			select {
			case <-w.done:
				// Someone else's cancelled context is not our failure: try again.
				if w.err != nil && !isContextErr(w.err) {
					return nil, w.err
				}
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		w := &dialWait{done: make(chan struct{})}
		c.dialing[protocol] = w
		c.mu.Unlock()

		cn, err := dial(ctx, c, protocol)
		c.mu.Lock()
		delete(c.dialing, protocol)
		if err == nil && c.closed {
			cn.close(ErrClosed)
			err = ErrClosed
		}
		if err == nil {
			c.conns[protocol] = cn
		}
		w.err = err
		close(w.done)
		c.mu.Unlock()
		return cn, err
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Close closes every connection; outstanding calls fail with ErrClosed.
// It waits for the connections' goroutines to exit.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	conns := c.conns
	c.conns = map[string]*conn{}
	c.mu.Unlock()
	for _, cn := range conns {
		cn.close(ErrClosed)
	}
	return nil
}
