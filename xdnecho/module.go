// Package xdnecho is the k6/x/dnecho JavaScript module of `dnecho run`: it lets k6-style scripts
// send Ozone DataNode Echo RPCs (what `ozone freon dn-echo` sends) and measure them.
//
// The module follows the engine's two-level contract (package engine/js/modules, shaped like
// grafana/xk6-sql): one Root per test run holds what every VU shares — the echo sessions of
// package ozone/echo (SCM lookups, pools of DataNode clients, encoded requests) — and one
// instance per VU holds that VU's Client objects with their per-VU caches, so the hot path takes
// no lock. The module only turns JS options into an echo.Spec and echo.Results into samples and
// JS values: everything Ozone is in ozone/echo, shared with `dnecho freon dn-echo`.
//
// A runner registers the module with Factory (register.go), which also carries the cluster
// defaults of the command line (`--local-cluster`, `--conf`, `--scm`). The Root must be closed
// when the test ends (see Root.Close); the engine's runner closes every module root that
// implements io.Closer.
//
// The JS API is described by js/index.d.ts.
package xdnecho

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Root is the module's state for one test run, shared by all its VUs: the echo sessions (one SCM
// lookup per distinct cluster and container, however many VUs ask; one pool of DataNode clients
// and one set of encoded requests per Client option set) and the metrics. It is safe for
// concurrent use.
//
// The engine's module contract has no end-of-test hook, so Root implements io.Closer: whoever
// runs the test must call Close after the last VU has finished — teardown and handleSummary
// included, since their VUs run the init context and so construct Clients again — or the gRPC
// connections stay open until the process exits.
type Root struct {
	defaults Defaults
	sessions *echo.SessionCache
	async    *workers // run echoAsync calls
	net      netWatches

	mu      sync.Mutex
	metrics *echometrics.Set
	logger  *slog.Logger // the test's, from the first VU
}

// New returns the Root of a new test run whose Clients default to the cluster d. Session
// events (a slow SCM, a pipeline looked up again) go to the first VU's test logger.
func New(d Defaults) *Root {
	r := &Root{defaults: d.clone(), async: newWorkers()}
	r.sessions = echo.NewSessionCache(r.event)
	return r
}

// NewModuleInstance implements modules.Module: it registers the dnecho_* metrics in the test's
// registry (once) and returns the VU's instance.
func (r *Root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	m, err := r.echoMetrics(vu.Test())
	if err != nil {
		return nil, err
	}
	return &instance{root: r, vu: vu, metrics: m, strs: map[string]goja.Value{}}, nil
}

// event logs a session event, naming the Client option the user can change.
func (r *Root) event(e echo.Event) {
	r.mu.Lock()
	log := r.logger
	r.mu.Unlock()
	if log == nil {
		return
	}
	msg := e.Message
	if n := optionName(e.Field); n != "" {
		msg += " (see the Client's " + strings.TrimPrefix(n, "option ") + " option)"
	}
	if e.Kind.Info() {
		log.Info(msg)
		return
	}
	log.Warn(msg)
}

// Close ends the test run's use of the cluster: it stops lookups still running and closes every
// session (connections and reused streams). Echo calls made afterwards fail with result
// CANCELLED. Close is idempotent and always returns nil.
func (r *Root) Close() error {
	r.net.stop()
	r.sessions.Close()
	r.async.close()
	return nil
}

// instance is the module's state for one VU. It is used only from that VU's goroutine.
type instance struct {
	root    *Root
	vu      modules.VU
	metrics *echometrics.Set
	// strs caches the JS strings of result names, DataNode ids and addresses, which repeat on
	// every call.
	strs map[string]goja.Value
}

// Exports implements modules.Instance: `import dnecho from 'k6/x/dnecho'` gives {Client}, and
// `import { Client } from 'k6/x/dnecho'` works too.
func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"Client": i.clientConstructor()}}
}

// maxCachedStrings bounds instance.strs; distinct values are few (results × DataNodes), so the
// bound only matters for a pathological script.
const maxCachedStrings = 1024

// str returns s as a JS string, cached.
func (i *instance) str(s string) goja.Value {
	if v, ok := i.strs[s]; ok {
		return v
	}
	if len(i.strs) >= maxCachedStrings {
		clear(i.strs)
	}
	v := i.vu.Runtime().ToValue(s)
	i.strs[s] = v
	return v
}
