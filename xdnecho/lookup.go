package xdnecho

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dnecho/dnecho/ozone/target"
)

// errNoCluster replaces target.ErrNoCluster, whose advice names command-line flags.
var errNoCluster = errors.New("no cluster given: pass `scm: 'host:port'` or `conf: '/path/to/ozone-conf'` in the Client options, " +
	"set OZONE_CONF_DIR, or run the script with `dnecho run --local-cluster`")

// lookupKey identifies one SCM lookup: VUs whose Clients agree on it share the result.
// Slices are joined with NUL so the key is comparable.
type lookupKey struct {
	scm, conf, set string
	container      int64
	lookup         string
	token          string
}

// lookupEntry is a lookup in progress or done; done is closed when tgt/err are set.
type lookupEntry struct {
	done chan struct{}
	tgt  *target.Target
	err  error
}

// clusterOf applies the process defaults: a Client that names neither scm nor conf uses them,
// CA files included unless it has its own tlsCA.
func (o *clientOptions) clusterOf(d Defaults) (scm []string, conf string, caFiles []string) {
	scm, conf, caFiles = o.SCM, o.Conf, o.TLSCA
	if len(scm) == 0 && conf == "" && d.isSet() {
		scm, conf = d.SCM, d.ConfDir
		if len(caFiles) == 0 {
			caFiles = d.CAFiles
		}
	}
	return scm, conf, caFiles
}

// targetOptions builds the lookup request and its cache key.
func (o *clientOptions) targetOptions(scm []string, conf string) (target.Options, lookupKey) {
	t := target.Options{
		SCM:           scm,
		ConfDir:       conf,
		Overrides:     o.Set,
		ContainerID:   o.ContainerID,
		Lookup:        o.lookupMode(),
		Token:         o.Token,
		LookupTimeout: o.LookupTimeout,
	}
	k := lookupKey{
		scm:       strings.Join(scm, "\x00"),
		conf:      conf,
		set:       strings.Join(o.Set, "\x00"),
		container: o.ContainerID,
		lookup:    o.Lookup,
		token:     o.Token,
	}
	return t, k
}

// resolve returns the target for key, running the lookup once per test run however many VUs
// ask (single flight). The lookup runs in a goroutine owned by the Root under the Root's
// context, not the caller's: an interrupted VU init stops waiting without failing the lookup for
// the others. A failed lookup is cached too — the test cannot start anyway, and a thousand VUs
// should not each wait for an unreachable SCM. The first Client's lookupTimeout applies.
func (r *Root) resolve(ctx context.Context, key lookupKey, o target.Options, log *slog.Logger) (*target.Target, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("the test run has ended")
	}
	e, ok := r.lookups[key]
	if !ok {
		e = &lookupEntry{done: make(chan struct{})}
		r.lookups[key] = e
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer close(e.done)
			// A lookup normally takes milliseconds; while SCM is slow or unreachable, say so.
			limit := o.LookupTimeout
			if limit <= 0 {
				limit = target.DefaultLookupTimeout
			}
			waiting := time.AfterFunc(min(2*time.Second, limit/2), func() {
				if log != nil {
					log.Warn(fmt.Sprintf("still waiting for SCM to answer the lookup of container %d "+
						"(retrying; giving up after %s, see the Client's lookupTimeout option)", o.ContainerID, limit))
				}
			})
			defer waiting.Stop()
			e.tgt, e.err = target.Resolve(r.ctx, o)
			if errors.Is(e.err, target.ErrNoCluster) {
				e.err = errNoCluster
			}
		}()
	}
	r.mu.Unlock()
	select {
	case <-e.done:
		return e.tgt, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the SCM lookup: %w", ctx.Err())
	}
}
