package target

import (
	"errors"

	"github.com/dnecho/dnecho/ozone/datanode"
)

// Pool is freon's --clients: n independent DataNode clients for one target, each with its own
// connections. Task (or VU) i uses client i mod n.
type Pool struct {
	clients []*datanode.Client
}

// NewPool creates n clients for the target's pipeline with the given options.
func NewPool(t *Target, o datanode.Options, n int) (*Pool, error) {
	if n < 1 {
		return nil, errors.New("a pool needs at least one client")
	}
	p := &Pool{}
	for range n {
		c, err := datanode.New(t.Pipeline, o)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.clients = append(p.clients, c)
	}
	return p, nil
}

// Len is the number of clients.
func (p *Pool) Len() int { return len(p.clients) }

// For returns the client task or VU i uses.
func (p *Pool) For(i uint64) *datanode.Client { return p.clients[i%uint64(len(p.clients))] }

// Prepare encodes r for every client; the result is indexed like the clients.
func (p *Pool) Prepare(r datanode.Request) ([]*datanode.Prepared, error) {
	out := make([]*datanode.Prepared, len(p.clients))
	for i, c := range p.clients {
		var err error
		if out[i], err = c.Prepare(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Close closes every client.
func (p *Pool) Close() {
	for _, c := range p.clients {
		_ = c.Close() // never fails
	}
}
