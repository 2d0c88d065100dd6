package datanode

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// Client sends Echo requests to the members of one pipeline. It is safe for
// concurrent use. Several Clients model freon's --clients: each has its own
// channels and TCP connections, like a Java client object.
type Client struct {
	opts    Options
	members []*member // Java order (OrderMembers)
	one     int       // member index for a single-DataNode Target
	rr      atomic.Uint64
	slots   chan struct{} // MaxOutstanding semaphore; nil when unlimited

	ctx    context.Context // parent of reused streams; cancelled by Close
	cancel context.CancelFunc
	closed atomic.Bool
	once   sync.Once
}

// member is one DataNode with its channel: a grpc-go one or an h2 one (Options.Transport).
type member struct {
	node DataNode
	conn *grpc.ClientConn
	pool *streamPool // StreamReused only, grpc-go
	h2   *h2.Channel
	h2s  *h2Pool // StreamReused only, h2
}

// New builds a Client for the members of pipeline. Channels connect lazily on
// the first call, like Java's.
func New(pipeline *hddspb.Pipeline, opts Options) (*Client, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ordered := OrderMembers(pipeline.GetMembers())
	if len(ordered) == 0 {
		return nil, errors.New("datanode: pipeline has no members")
	}
	creds := insecure.NewCredentials()
	var tlsConf *tls.Config
	if opts.TLS != nil {
		if tlsConf, err = tlsConfig(opts.TLS); err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(tlsConf)
	}
	c := &Client{opts: opts, one: -1}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if opts.MaxOutstanding > 0 {
		c.slots = make(chan struct{}, opts.MaxOutstanding)
	}
	for i, m := range ordered {
		node, err := nodeOf(m, opts.UseHostname, opts.DefaultPort)
		if err != nil {
			c.Close()
			return nil, err
		}
		if t := opts.Target; t != TargetFirst && t != TargetAll && t.matches(node, m) {
			if c.one >= 0 {
				c.Close()
				return nil, &TargetError{Target: t, Reason: fmt.Sprintf("matches %s and %s; use a UUID or address:port",
					c.members[c.one].node.Addr, node.Addr)}
			}
			c.one = i
		}
		mb, err := c.newMember(node, creds, tlsConf)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.members = append(c.members, mb)
	}
	if t := opts.Target; t != TargetFirst && t != TargetAll && c.one < 0 {
		var names []string
		for _, m := range c.members {
			names = append(names, m.node.UUID+" ("+m.node.Addr+")")
		}
		c.Close()
		return nil, &TargetError{Target: t, Reason: fmt.Sprintf("matches no member of the pipeline; want %q, %q, or the UUID, host or address:port of one of %s",
			TargetFirst, TargetAll, strings.Join(names, ", "))}
	}
	return c, nil
}

func dialOptions(opts Options, creds credentials.TransportCredentials, node DataNode) []grpc.DialOption {
	d := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		// grpc-go receives at most 4 MiB by default. The send side needs
		// no call option (each costs an allocation per call): Prepare
		// already refuses requests above MaxMessageSize.
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(opts.MaxMessageSize), grpc.ForceCodecV2(codec{})),
		// The Java client disables proxy detection (docs/ozone-echo.md#member-order-and-address).
		grpc.WithNoProxy(),
	}
	if opts.TLS != nil && opts.TLS.TestCert {
		// Java overrides the channel authority, which is also the name
		// the server certificate is verified against.
		d = append(d, grpc.WithAuthority("localhost"))
	}
	if opts.Conns != nil {
		d = append(d, grpc.WithContextDialer(Dialer(node, opts.Conns)))
	}
	return d
}

// Members returns the DataNodes in the order calls try them.
func (c *Client) Members() []DataNode {
	out := make([]DataNode, len(c.members))
	for i, m := range c.members {
		out[i] = m.node
	}
	return out
}

// Close ends reused streams and closes every channel; calls in flight fail.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.closed.Store(true)
		c.cancel()
		for _, m := range c.members {
			m.close()
		}
	})
	return nil
}

// Echo sends p once, retrying on other members as the target allows. It
// always returns a Result describing the call; the error is nil on SUCCESS,
// an *EchoError for another Ozone result, or wraps the gRPC status (use
// status.Code) or ErrNoReply.
func (c *Client) Echo(ctx context.Context, p *Prepared) (Result, error) {
	if p == nil || p.client != c {
		return Result{}, errors.New("datanode: request prepared by another client")
	}
	if c.closed.Load() {
		return Result{}, ErrClosed
	}
	// The measured interval starts before the wait for a call slot, as Java's timer starts before
	// XceiverClientGrpc.sendCommandAsync acquires its semaphore.
	start := time.Now()
	if c.slots != nil {
		// A free slot is taken without a two-way select (the common case, and the cheaper one).
		select {
		case c.slots <- struct{}{}:
		default:
			select {
			case c.slots <- struct{}{}:
			case <-ctx.Done():
				st := status.FromContextError(ctx.Err())
				return Result{GRPCCode: st.Code(), Message: st.Message(), RTT: time.Since(start)},
					fmt.Errorf("datanode: waiting for a call slot (MaxOutstanding %d): %w", c.opts.MaxOutstanding, st.Err())
			}
		}
		defer func() { <-c.slots }()
	}

	first, last := 0, len(c.members)-1
	switch {
	case c.one >= 0:
		first, last = c.one, c.one
	case c.opts.Target == TargetAll:
		first = int((c.rr.Add(1) - 1) % uint64(len(c.members)))
		last = first
	case c.opts.NoRetry:
		last = 0
	}

	var res Result
	var err error
	mark := start // where the current attempt's own time starts
	for i := first; i <= last; i++ {
		m := c.members[i]
		// Whether the caller's deadline, not Options.Timeout, bounds this attempt.
		d, hasDeadline := ctx.Deadline()
		callerBound := hasDeadline && time.Until(d) <= c.opts.Timeout
		res.DataNode = m.node
		res.Attempts++
		res.answered = time.Time{}
		res.BytesSent += p.reqs[i].size
		if m.pool != nil {
			err = m.pool.call(ctx, &res, p.reqs[i])
		} else {
			err = c.callNewStream(ctx, m, &res, p.reqs[i])
		}
		if err == nil || i == last || !retryable(ctx, err, callerBound) {
			break
		}
		mark = res.retried(mark)
	}
	res.RTT = res.end().Sub(start)
	return res, err
}

// end is when the last attempt ended: its response, or now when none arrived.
func (r *Result) end() time.Time {
	if r.answered.IsZero() {
		return time.Now()
	}
	return r.answered
}

// retried books the failed attempt that began at mark, as the call moves on to the next member,
// and returns when it ended: where the next attempt's own time begins.
func (r *Result) retried(mark time.Time) time.Time {
	end := r.end()
	r.Earlier = append(r.Earlier, Attempt{DataNode: r.DataNode, Took: end.Sub(mark), Code: r.Code, GRPCCode: r.GRPCCode})
	return end
}

// retryable follows the Java client
// (docs/ozone-echo.md#retries-across-members): any failure moves on to the
// next member, except UNAUTHENTICATED. A caller that has given up ends the
// call too, including a DEADLINE_EXCEEDED of an attempt bounded by the
// caller's deadline: the DataNode enforces the same deadline and may report
// it a moment before the caller's context fires.
func retryable(ctx context.Context, err error, callerBound bool) bool {
	if ctx.Err() != nil {
		return false
	}
	switch status.Code(err) {
	case codes.Unauthenticated:
		return false
	case codes.DeadlineExceeded:
		return !callerBound
	}
	return true
}
