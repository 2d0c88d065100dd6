package echo

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// SessionCache shares sessions among the workers of one test run that open equal Specs — the VUs of a
// script that each construct the same Client — and shares lookups among Specs that differ only
// in how they send (target, stream, clients, ...): one SCM lookup per cluster and container
// however many ask. A failed lookup is kept too: the test cannot start anyway, and a thousand VUs
// should not each wait for an unreachable SCM. Close ends every session the cache opened.
type SessionCache struct {
	obs    Observer
	ctx    context.Context // parent of lookups; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	lookups  map[string]*pending[*Placement]
	sessions map[string]*pending[*Session]
}

// pending is a result being made; done is closed when v and err are set.
type pending[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// NewSessionCache returns an empty cache whose sessions report to obs.
func NewSessionCache(obs Observer) *SessionCache {
	c := &SessionCache{obs: obs, lookups: map[string]*pending[*Placement]{}, sessions: map[string]*pending[*Session]{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// ErrCacheClosed is returned by Open after Close.
var ErrCacheClosed = errors.New("the test run has ended")

// Open returns the cached session for spec, opening it on first use. The lookup runs under the
// cache, not ctx: a caller whose ctx ends stops waiting (the error wraps ErrInterrupted) without
// failing the lookup for the others. The first Spec's LookupTimeout applies to a shared lookup.
// Sessions from a cache are closed by SessionCache.Close, not by their users.
func (c *SessionCache) Open(ctx context.Context, spec Spec) (*Session, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec = spec.withDefaults()
	sk := fmt.Sprintf("%#v", spec)
	return wait(ctx, start(c, c.sessions, sk, func() (*Session, error) {
		t, err := wait(c.ctx, start(c, c.lookups, lookupKey(spec), func() (*Placement, error) {
			return lookup(c.ctx, spec, c.obs)
		}))
		if err != nil {
			return nil, err
		}
		return newSession(spec, t, c.obs)
	}))
}

// lookupKey identifies what a lookup asks: where (and as whom), which container, how, the token
// mode, and whether the OM is asked for CA certificates (only without CA files).
func lookupKey(s Spec) string {
	return fmt.Sprintf("%#v", []any{s.Cluster, s.ContainerID, s.Lookup, s.Token, len(s.TLSCA) == 0})
}

// start returns the entry for key in m, making it with f in a goroutine of the cache on first use.
func start[T any](c *SessionCache, m map[string]*pending[T], key string, f func() (T, error)) *pending[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := m[key]; ok {
		return e
	}
	e := &pending[T]{done: make(chan struct{})}
	if c.closed {
		e.err = ErrCacheClosed
		close(e.done)
		return e
	}
	m[key] = e
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(e.done)
		e.v, e.err = f()
	}()
	return e
}

// wait returns e's result, or an interrupt when ctx ends first.
func wait[T any](ctx context.Context, e *pending[T]) (T, error) {
	select {
	case <-e.done:
		return e.v, e.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("waiting for the SCM lookup: %w (%w)", ErrInterrupted, ctx.Err())
	}
}

// Close stops lookups in progress and closes every session the cache opened. It is idempotent.
func (c *SessionCache) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.sessions {
		if e.err == nil && e.v != nil {
			e.v.Close()
		}
	}
}
