package echo

import (
	"context"
	"sync/atomic"

	"github.com/dnecho/dnecho/ozone/datanode"
)

// Call is a Request prepared for a session: encoded once per client of the session's current
// pipeline and shared by every worker that sends it, so the hot path builds nothing. It is safe
// for concurrent use and stays valid when the session moves to another pipeline.
type Call struct {
	s   *Session
	req datanode.Request // without Token, which belongs to the placement
	enc atomic.Pointer[encoded]
}

// encoded is the Call's request for one generation of the session.
type encoded struct {
	gen *generation
	per []atomic.Pointer[prepared] // by client index
}

// Echo sends the Call's request once through the client worker uses (worker mod Clients): freon
// passes its task id, the JS module its VU id.
func (c *Call) Echo(ctx context.Context, worker uint64) Result {
	g := c.s.gen.Load()
	if g == nil {
		return failed(ctx, datanode.ErrClosed)
	}
	r := c.echo(ctx, g, worker)
	r.Pipeline = g.pipeline
	return r
}

// echo makes the call on generation g.
func (c *Call) echo(ctx context.Context, g *generation, worker uint64) Result {
	i := g.pool.index(worker)
	cl, err := g.pool.client(i)
	if err != nil {
		return failed(ctx, err)
	}
	p, err := c.prepared(g, i, cl)
	if err != nil {
		return failed(ctx, err)
	}
	res, err := cl.echo(ctx, p)
	r := newResult(ctx, res, err)
	c.s.health.observe(c.s, &r)
	return r
}

// Mode says what the Call measures: gRPC, a Ratis read or a Ratis write.
func (c *Call) Mode() Mode {
	switch {
	case c.s.spec.Transport != TransportRatis:
		return ModeGRPC
	case c.req.ReadOnly:
		return ModeRatisRead
	}
	return ModeRatisWrite
}

// prepared returns the request encoded for client i of generation g.
func (c *Call) prepared(g *generation, i int, cl *conn) (*prepared, error) {
	e := c.enc.Load()
	if e == nil || e.gen != g {
		fresh := &encoded{gen: g, per: make([]atomic.Pointer[prepared], len(g.pool.slots))}
		if !c.enc.CompareAndSwap(e, fresh) {
			e = c.enc.Load() // another worker got there first (or the generation moved again)
			if e.gen != g {
				return c.encode(g, cl) // a call racing a pipeline change: encode just for it
			}
		} else {
			e = fresh
		}
	}
	if p := e.per[i].Load(); p != nil {
		return p, nil
	}
	p, err := c.encode(g, cl)
	if err != nil {
		return nil, err
	}
	e.per[i].CompareAndSwap(nil, p)
	return e.per[i].Load(), nil
}

func (c *Call) encode(g *generation, cl *conn) (*prepared, error) {
	r := c.req
	r.Token = g.placement.Token
	return cl.prepare(r)
}
