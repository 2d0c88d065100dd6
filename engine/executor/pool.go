package executor

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/plan"
)

// getVUTimeout bounds how long a scenario waits for a planned VU. The plan guarantees enough
// VUs, but one scenario may hand a VU back a moment after the next one asks for it.
const getVUTimeout = 2 * time.Second

// pooledVU is a VU the scheduler owns, with its id and the state that follows it across
// scenarios; it is in the pool while idle and leased to one scenario goroutine otherwise.
type pooledVU struct {
	vu VU
	id execinfo.VUID
	// iter is this VU's iteration count across scenarios (`__ITER`). Only the goroutine that
	// currently holds the VU touches it; the pool's mutex orders the hand-overs.
	iter int64
}

// vuPool holds the initialised VUs that no scenario is using.
type vuPool struct {
	factory VUFactory
	tuple   *plan.ExecutionTuple

	mu      sync.Mutex
	idle    []*pooledVU
	changed chan struct{} // closed and replaced whenever a VU is returned
	nextID  uint64

	initialized atomic.Int64
}

func newVUPool(f VUFactory, et *plan.ExecutionTuple) *vuPool {
	return &vuPool{factory: f, tuple: et, changed: make(chan struct{})}
}

// create initialises one new VU with the next id.
func (p *vuPool) create(ctx context.Context) (*pooledVU, error) {
	p.mu.Lock()
	p.nextID++
	local := p.nextID
	p.mu.Unlock()
	id := execinfo.VUID{InInstance: local, InTest: uint64(p.tuple.Global(int64(local)-1)) + 1}
	vu, err := p.factory.NewVU(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("initializing VU #%d: %w", local, err)
	}
	if vu == nil {
		return nil, fmt.Errorf("initializing VU #%d: the factory returned no VU", local)
	}
	p.initialized.Add(1)
	return &pooledVU{vu: vu, id: id}, nil
}

// initialize creates n VUs before the test, GOMAXPROCS at a time, as k6 does.
func (p *vuPool) initialize(ctx context.Context, n int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for i := int64(0); i < n && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			pv, err := p.create(ctx)
			if err != nil {
				once.Do(func() { firstErr = err; cancel() })
				return
			}
			p.put(pv)
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	// Hand out low ids first, so a 3-VU scenario runs VUs 1–3 (the idle list is a stack).
	p.mu.Lock()
	slices.SortFunc(p.idle, func(a, b *pooledVU) int { return cmp.Compare(b.id.InInstance, a.id.InInstance) })
	p.mu.Unlock()
	return firstErr
}

// tryGet takes an idle VU without waiting.
func (p *vuPool) tryGet() *pooledVU {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.popLocked()
}

func (p *vuPool) popLocked() *pooledVU {
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	pv := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return pv
}

// get takes an idle VU, waiting up to getVUTimeout for another scenario to return one.
func (p *vuPool) get(ctx context.Context) (*pooledVU, error) {
	timer := time.NewTimer(getVUTimeout)
	defer timer.Stop()
	for {
		p.mu.Lock()
		pv := p.popLocked()
		changed := p.changed
		p.mu.Unlock()
		if pv != nil {
			return pv, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, fmt.Errorf("no VU became free within %s (%d initialised)", getVUTimeout, p.initialized.Load())
		}
	}
}

// grow returns an idle VU if there is one, else initialises a new one (arrival-rate growth).
func (p *vuPool) grow(ctx context.Context) (*pooledVU, error) {
	if pv := p.tryGet(); pv != nil {
		return pv, nil
	}
	return p.create(ctx)
}

// put returns a VU to the pool and wakes waiting getters.
func (p *vuPool) put(pv *pooledVU) {
	p.mu.Lock()
	p.idle = append(p.idle, pv)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}
