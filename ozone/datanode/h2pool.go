package datanode

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
)

// h2Pool is streamPool (pool.go) over package h2: idle long-lived streams of one DataNode, each
// borrowed for a whole round trip. An h2 stream takes each call's deadline and the caller's
// context itself, so no timer or context watch lives here.
type h2Pool struct {
	c *Client
	m *member

	mu     sync.Mutex
	idle   []*h2Stream
	closed bool
}

type h2Stream struct {
	s     *h2.Stream
	used  bool // has completed a round trip
	reply h2Reply
}

func newH2Pool(c *Client, m *member) *h2Pool { return &h2Pool{c: c, m: m} }

// call is one attempt on a borrowed stream. A stream that ended while idle is noticed when the
// request cannot be sent; the request then never left, so it goes once more on a new stream.
func (p *h2Pool) call(ctx context.Context, res *Result, req *encoded) error {
	for {
		s, err := p.get(ctx)
		if err != nil {
			return p.m.grpcFailure(res, err)
		}
		unsent, err := s.s.RoundTrip(ctx, callTimeout(ctx, p.c.opts.Timeout), req.framed, &s.reply.msg)
		if unsent && s.used {
			s.s.Close()
			continue
		}
		if err != nil {
			s.s.Close()
			if status.Code(err) == codes.DeadlineExceeded && ctx.Err() == nil {
				err = status.Error(codes.DeadlineExceeded, "datanode: echo deadline exceeded on reused stream")
			}
			return p.m.recvFailure(res, err)
		}
		res.answered = time.Now()
		s.used = true
		if err := s.reply.check(); err != nil {
			s.s.Close()
			return p.m.grpcFailure(res, err)
		}
		err = p.m.response(res, &s.reply.reply)
		p.put(s)
		return err
	}
}

// get borrows an idle stream or opens one.
func (p *h2Pool) get(ctx context.Context) (*h2Stream, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		s := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	st, err := p.m.h2.Open(ctx, callTimeout(ctx, p.c.opts.Timeout))
	if err != nil {
		return nil, err
	}
	return &h2Stream{s: st}, nil
}

// put returns a stream that can carry another call; others are closed.
func (p *h2Pool) put(s *h2Stream) {
	p.mu.Lock()
	if p.closed || s.s.Broken() || len(p.idle) >= p.c.opts.MaxIdleStreams {
		p.mu.Unlock()
		s.s.Close()
		return
	}
	p.idle = append(p.idle, s)
	p.mu.Unlock()
}

func (p *h2Pool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, s := range idle {
		s.s.Close()
	}
}
