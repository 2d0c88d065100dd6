package xdnecho

import (
	"fmt"
	"strings"
	"time"

	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/target"
)

// poolKey identifies a pool of datanode clients: Clients (of any VU) that agree on the lookup and
// on every option that shapes a connection share one pool.
type poolKey struct {
	lookup   lookupKey
	target   string
	stream   string
	clients  int
	deadline time.Duration
	retries  bool
	tls      string // CA files joined with NUL
}

// pool is freon's --clients for a Client option set: N independent datanode clients, each with
// its own connections (target.Pool). VU n uses client n mod N, as freon's task i uses client i
// mod N.
type pool struct {
	tgt       *target.Target
	container int64
	clients   *target.Pool
}

// clientFor returns the client a VU uses.
func (p *pool) clientFor(vuID uint64) *datanode.Client { return p.clients.For(vuID) }

func (p *pool) close() { p.clients.Close() }

// poolOf returns the shared pool for a Client, creating it on first use. Creating it is cheap
// (connections are made lazily on the first call), so a mutex is enough.
func (r *Root) poolOf(key poolKey, tgt *target.Target, o *clientOptions, caFiles []string) (*pool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("the test run has ended")
	}
	if p, ok := r.pools[key]; ok {
		return p, nil
	}
	base := datanode.Options{
		Target:  datanode.Target(o.Target),
		Streams: datanode.StreamPerRequest,
		NoRetry: !o.Retries,
		Timeout: o.Deadline,
	}
	if o.Stream == streamReuse {
		base.Streams = datanode.StreamReused
	}
	dnOpts, err := tgt.DataNodeOptions(base, caFiles)
	if err != nil {
		// The message names the CLI flag; say where a script sets the CA files.
		return nil, fmt.Errorf("%w (in a script: the Client's tlsCA option)", err)
	}
	clients, err := target.NewPool(tgt, dnOpts, o.Clients)
	if err != nil {
		if o.Target != targetFirst && o.Target != targetAll {
			err = fmt.Errorf("option target %q: %w", o.Target, err)
		}
		return nil, err
	}
	p := &pool{tgt: tgt, container: o.ContainerID, clients: clients}
	r.pools[key] = p
	return p, nil
}

// newPoolKey builds the pool key of a Client.
func newPoolKey(lk lookupKey, o *clientOptions, caFiles []string) poolKey {
	return poolKey{
		lookup: lk, target: o.Target, stream: o.Stream, clients: o.Clients,
		deadline: o.Deadline, retries: o.Retries, tls: strings.Join(caFiles, "\x00"),
	}
}

// preparedKey identifies an encoded request: one per datanode client and request shape.
type preparedKey struct {
	client *datanode.Client
	shape  requestShape
}

// prepare returns the encoded request of shape for client c, shared by every VU that uses c.
// Sharing matters for large payloads: a thousand VUs sending 1 MiB must not hold a gigabyte.
func (r *Root) prepare(p *pool, c *datanode.Client, shape requestShape) (*datanode.Prepared, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, datanode.ErrClosed
	}
	k := preparedKey{client: c, shape: shape}
	if prep, ok := r.prepared[k]; ok {
		return prep, nil
	}
	prep, err := c.Prepare(datanode.Request{
		ContainerID:     p.container,
		Token:           p.tgt.Token,
		Payload:         r.payload(shape.payloadReq),
		PayloadSizeResp: shape.payloadResp,
		SleepTimeMs:     shape.sleepMs,
		ReadOnly:        shape.readOnly,
	})
	if err != nil {
		return nil, err
	}
	r.prepared[k] = prep
	return prep, nil
}

// payload returns n bytes of freon's request payload (its 1024-byte random seed repeated), cut
// to n so that sizes need not be whole KiB. Callers hold r.mu.
func (r *Root) payload(n int64) []byte {
	if b, ok := r.payloads[n]; ok {
		return b
	}
	kb := int((n + freon.PayloadUnit - 1) / freon.PayloadUnit)
	b := freon.RequestPayload(kb)[:n]
	r.payloads[n] = b
	return b
}
