package echo

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
)

// pool is freon's --clients for one placement: n independent clients, each with its own
// connections (a gRPC client, or a Raft client over Ratis); worker i uses client i mod n.
// Clients are made on first use, so a large n costs nothing until workers need them
// (--clients 1000 with -n 5 makes five).
type pool struct {
	placement *Placement
	opts      datanode.Options
	ropts     *ratis.Options // nil: the gRPC transport
	slots     []atomic.Pointer[conn]

	mu     sync.Mutex // creation and close
	closed bool
}

// conn is one client of a pool: exactly one of grpc and ratis is set.
type conn struct {
	grpc  *datanode.Client
	ratis *ratis.Client
}

// prepared is a request encoded for one conn.
type prepared struct {
	grpc  *datanode.Prepared
	ratis *ratis.Prepared
}

func (c *conn) prepare(r datanode.Request) (*prepared, error) {
	if c.ratis != nil {
		p, err := c.ratis.Prepare(r)
		return &prepared{ratis: p}, err
	}
	p, err := c.grpc.Prepare(r)
	return &prepared{grpc: p}, err
}

func (c *conn) echo(ctx context.Context, p *prepared) (datanode.Result, error) {
	if c.ratis != nil {
		return c.ratis.Echo(ctx, p.ratis)
	}
	return c.grpc.Echo(ctx, p.grpc)
}

func (c *conn) members() []datanode.DataNode {
	if c.ratis != nil {
		return c.ratis.Members()
	}
	return c.grpc.Members()
}

func (c *conn) close() {
	if c.ratis != nil {
		_ = c.ratis.Close() // never fails
		return
	}
	_ = c.grpc.Close() // never fails
}

func newPool(t *Placement, o datanode.Options, ro *ratis.Options, n int) (*pool, error) {
	p := &pool{placement: t, opts: o, ropts: ro, slots: make([]atomic.Pointer[conn], n)}
	// The first client is made now: it checks the options and the pipeline's members (a Target
	// naming no member, a member without a port) before any call is made.
	if _, err := p.client(0); err != nil {
		return nil, err
	}
	return p, nil
}

// index is the client worker i uses.
func (p *pool) index(worker uint64) int { return int(worker % uint64(len(p.slots))) }

// client returns client i, making it on first use.
func (p *pool) client(i int) (*conn, error) {
	if c := p.slots[i].Load(); c != nil {
		return c, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, datanode.ErrClosed
	}
	if c := p.slots[i].Load(); c != nil {
		return c, nil
	}
	c := &conn{}
	var err error
	if p.ropts != nil {
		c.ratis, err = ratis.New(p.placement.Pipeline, *p.ropts)
	} else {
		c.grpc, err = datanode.New(p.placement.Pipeline, p.opts)
	}
	if err != nil {
		return nil, err
	}
	p.slots[i].Store(c)
	return c, nil
}

// timeout is how long a call may still run on the pool's clients.
func (p *pool) timeout() time.Duration {
	if p.ropts != nil {
		return p.ropts.RequestTimeout
	}
	return p.opts.Timeout
}

// made counts the clients made so far.
func (p *pool) made() int {
	n := 0
	for i := range p.slots {
		if p.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

// close closes every client made; later calls fail with datanode.ErrClosed.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	// In parallel: a Ratis client waits up to its close timeout (3 s) for each stream to end,
	// and --clients may be 1024.
	var wg sync.WaitGroup
	for i := range p.slots {
		if c := p.slots[i].Load(); c != nil {
			wg.Go(c.close)
		}
	}
	wg.Wait()
}
