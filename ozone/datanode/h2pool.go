package datanode

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
)

// h2Pool is streamPool (pool.go) over package h2: idle long-lived streams of one DataNode, each
// borrowed for a whole round trip. An h2 stream takes each call's deadline and the caller's
// context itself, so no timer or context watch lives here.
type h2Pool struct {
	c    *Client
	m    *member
	idle idleStreams[*h2Stream]
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
	if s, ok := p.idle.take(); ok {
		return s, nil
	}
	st, err := p.m.h2.Open(ctx, callTimeout(ctx, p.c.opts.Timeout))
	if err != nil {
		return nil, err
	}
	return &h2Stream{s: st}, nil
}

// put returns a stream that can carry another call; others are closed.
func (p *h2Pool) put(s *h2Stream) {
	if s.s.Broken() || !p.idle.keep(s, p.c.opts.MaxIdleStreams) {
		s.s.Close()
	}
}

func (p *h2Pool) close() {
	for _, s := range p.idle.close() {
		s.s.Close()
	}
}
