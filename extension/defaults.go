package dnecho

import (
	"slices"
	"sync"
)

// Defaults is the cluster a Client uses when its options give neither `scm` nor `conf`.
// `dnecho run --local-cluster` points it at the in-process mini cluster.
type Defaults struct {
	// SCM lists SCM client addresses ("host:port").
	SCM []string
	// ConfDir holds ozone-site.xml.
	ConfDir string
	// CAFiles are CA PEM files for TLS to the DataNodes, used when the Client has no tlsCA.
	CAFiles []string
}

var (
	defaultsMu sync.RWMutex
	defaults   Defaults
)

// SetDefaults sets the process-wide default cluster for Clients whose options name neither
// `scm` nor `conf`. Without defaults such a Client reads $OZONE_CONF_DIR, and fails with a
// message naming the options when that is unset too. It affects Clients created afterwards;
// the zero Defaults removes them.
func SetDefaults(d Defaults) {
	defaultsMu.Lock()
	defer defaultsMu.Unlock()
	defaults = Defaults{SCM: slices.Clone(d.SCM), ConfDir: d.ConfDir, CAFiles: slices.Clone(d.CAFiles)}
}

// currentDefaults returns the defaults; the slices must not be modified.
func currentDefaults() Defaults {
	defaultsMu.RLock()
	defer defaultsMu.RUnlock()
	return defaults
}

// isSet reports whether the defaults name a cluster.
func (d Defaults) isSet() bool { return len(d.SCM) > 0 || d.ConfDir != "" }
