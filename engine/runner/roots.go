package runner

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/dnecho/dnecho/engine/js/modules"
)

// roots remembers the root of every Go module the test instantiated, so that roots holding
// resources (connection pools, an SCM client) are closed when the test ends.
type roots struct {
	mu   sync.Mutex
	list []namedRoot
}

type namedRoot struct {
	name string
	m    modules.Module
}

// wrap returns the factories of the run's Go modules, each recording its root.
func (r *roots) wrap(all map[string]modules.Factory) map[string]modules.Factory {
	out := make(map[string]modules.Factory, len(all))
	for name, f := range all {
		out[name] = func() modules.Module {
			m := f()
			r.mu.Lock()
			r.list = append(r.list, namedRoot{name, m})
			r.mu.Unlock()
			return m
		}
	}
	return out
}

// close closes the roots that are io.Closers, last created first, and returns every failure.
func (r *roots) close() error {
	r.mu.Lock()
	list := slices.Clone(r.list)
	r.list = nil
	r.mu.Unlock()
	var errs []error
	for i := len(list) - 1; i >= 0; i-- {
		if c, ok := list[i].m.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("module %s: close: %w", list[i].name, err))
			}
		}
	}
	return errors.Join(errs...)
}
