package echo

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Group shares sessions among the workers of one test run that open equal Specs — the VUs of a
// script that each construct the same Client — and shares lookups among Specs that differ only
// in how they send (target, stream, clients, ...): one SCM lookup per cluster and container
// however many ask. A failed lookup is kept too: the test cannot start anyway, and a thousand VUs
// should not each wait for an unreachable SCM. Close ends every session the group opened.
type Group struct {
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

// NewGroup returns an empty group whose sessions report to obs.
func NewGroup(obs Observer) *Group {
	g := &Group{obs: obs, lookups: map[string]*pending[*Placement]{}, sessions: map[string]*pending[*Session]{}}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g
}

// ErrGroupClosed is returned by Open after Close.
var ErrGroupClosed = errors.New("the test run has ended")

// Open returns the group's session for spec, opening it on first use. The lookup runs under the
// group, not ctx: a caller whose ctx ends stops waiting (the error wraps ErrInterrupted) without
// failing the lookup for the others. The first Spec's LookupTimeout applies to a shared lookup.
// Sessions from a group are closed by Group.Close, not by their users.
func (g *Group) Open(ctx context.Context, spec Spec) (*Session, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec = spec.withDefaults()
	sk := fmt.Sprintf("%#v", spec)
	return wait(ctx, start(g, g.sessions, sk, func() (*Session, error) {
		t, err := wait(g.ctx, start(g, g.lookups, lookupKey(spec), func() (*Placement, error) {
			return lookup(g.ctx, spec, g.obs)
		}))
		if err != nil {
			return nil, err
		}
		return newSession(spec, t, g.obs)
	}))
}

// lookupKey identifies what a lookup asks: where (and as whom), which container, how, the token
// mode, and whether the OM is asked for CA certificates (only without CA files).
func lookupKey(s Spec) string {
	return fmt.Sprintf("%#v", []any{s.Cluster, s.ContainerID, s.Lookup, s.Token, len(s.TLSCA) == 0})
}

// start returns the entry for key in m, making it with f in a goroutine of the group on first use.
func start[T any](g *Group, m map[string]*pending[T], key string, f func() (T, error)) *pending[T] {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, ok := m[key]; ok {
		return e
	}
	e := &pending[T]{done: make(chan struct{})}
	if g.closed {
		e.err = ErrGroupClosed
		close(e.done)
		return e
	}
	m[key] = e
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
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

// Close stops lookups in progress and closes every session the group opened. It is idempotent.
func (g *Group) Close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range g.sessions {
		if e.err == nil && e.v != nil {
			e.v.Close()
		}
	}
}
