package echo

import (
	"sync"
	"sync/atomic"

	"github.com/dnecho/dnecho/ozone/datanode"
)

// pool is freon's --clients for one target: n independent DataNode clients, each with its own
// connections; worker i uses client i mod n. Clients are made on first use, so a large n costs
// nothing until workers need them (--clients 1000 with -n 5 makes five).
type pool struct {
	target *Target
	opts   datanode.Options
	slots  []atomic.Pointer[datanode.Client]

	mu     sync.Mutex // creation and close
	closed bool
}

func newPool(t *Target, o datanode.Options, n int) (*pool, error) {
	p := &pool{target: t, opts: o, slots: make([]atomic.Pointer[datanode.Client], n)}
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
func (p *pool) client(i int) (*datanode.Client, error) {
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
	c, err := datanode.New(p.target.Pipeline, p.opts)
	if err != nil {
		return nil, err
	}
	p.slots[i].Store(c)
	return c, nil
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
	for i := range p.slots {
		if c := p.slots[i].Load(); c != nil {
			_ = c.Close() // never fails
		}
	}
}
