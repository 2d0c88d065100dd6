package hadooprpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// dial connects, sends the preamble, authenticates if configured and sends
// the connection context; the server answers none of these on success.
func dial(parent context.Context, c *Client, protocol string) (*conn, error) {
	ctx, cancel := context.WithTimeout(parent, c.opts.ConnectTimeout)
	defer cancel()
	nc, err := c.opts.Dial(ctx, "tcp", c.addr)
	if err != nil {
		return nil, &ConnError{Addr: c.addr, Op: "dial", Err: err}
	}
	nc, err = handshake(ctx, nc, c, protocol)
	if err != nil {
		defer nc.Close()
		var re *RemoteError
		var ae *AuthError
		switch {
		case errors.As(err, &re):
			return nil, err
		case errors.As(err, &ae): // the server is waiting for our next message, not closing
			return nil, &ConnError{Addr: c.addr, Op: "handshake", Err: err}
		case parent.Err() != nil:
			return nil, parent.Err()
		case isContextErr(err):
			err = fmt.Errorf("no handshake within the connect timeout (%v)", c.opts.ConnectTimeout)
		}
		if re := fatalReplyAfter(nc, c.opts.MaxResponseLength); re != nil {
			return nil, re
		}
		return nil, &ConnError{Addr: c.addr, Op: "handshake", Err: err}
	}
	ping, err := wire.AppendFrame(nil, wire.RequestHeader(wire.CallIDPing, c.opts.ClientID, -1))
	if err != nil {
		nc.Close()
		return nil, err
	}
	now := time.Now()
	cn := &conn{c: c, nc: nc, ping: ping, pending: map[int32]chan callResult{},
		lastUse: now, quietSince: now, done: make(chan struct{})}
	go cn.readLoop()
	return cn, nil
}

func handshake(ctx context.Context, nc net.Conn, c *Client, protocol string) (net.Conn, error) {
	restore := interruptOnDone(ctx, nc.SetDeadline)
	defer restore()
	auth := byte(wire.AuthNone)
	if c.opts.Authenticator != nil {
		auth = wire.AuthSASL
	}
	if _, err := nc.Write(wire.Preamble(auth)); err != nil {
		return nc, ctxOr(ctx, err)
	}
	if c.opts.Authenticator != nil {
		s := &SASLConn{nc: nc, addr: c.addr, maxLen: c.opts.MaxResponseLength}
		wrapped, err := c.opts.Authenticator.Authenticate(ctx, s)
		if err != nil {
			return nc, ctxOr(ctx, err)
		}
		nc = wrapped
	}
	frame, err := wire.AppendFrame(nil,
		wire.RequestHeader(wire.CallIDContext, c.opts.ClientID, -1),
		&hadooppb.IpcConnectionContextProto{
			UserInfo: &hadooppb.UserInformationProto{EffectiveUser: &c.opts.User},
			Protocol: &protocol,
		})
	if err != nil {
		return nc, err
	}
	if _, err := nc.Write(frame); err != nil {
		return nc, ctxOr(ctx, err)
	}
	return nc, nil
}

// fatalReplyAfter looks for the FATAL reply a server sends before closing
// (e.g. "SIMPLE authentication is not enabled"), which explains a failed
// handshake write better than "broken pipe".
func fatalReplyAfter(nc net.Conn, maxLen int) *RemoteError {
	nc.SetReadDeadline(time.Now().Add(writeFailGrace))
	r, err := readResponse(nc, maxLen, true)
	var re *RemoteError
	switch {
	case errors.As(err, &re):
		return re
	case err == nil && r.header.GetStatus() == hadooppb.RpcResponseHeaderProto_FATAL:
		return remoteError(r.header)
	}
	return nil
}

// interruptOnDone applies ctx's deadline to nc and unblocks I/O when ctx is
// cancelled; the returned func clears both once the I/O is over.
func interruptOnDone(ctx context.Context, setDeadline func(time.Time) error) (restore func()) {
	if dl, ok := ctx.Deadline(); ok {
		setDeadline(dl)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		setDeadline(longAgo)
		close(fired)
	})
	return func() {
		if !stop() {
			<-fired // never let a late AfterFunc poison the next operation
		}
		setDeadline(time.Time{})
	}
}

// ctxOr prefers the context's error: an I/O timeout we caused is a cancellation.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
