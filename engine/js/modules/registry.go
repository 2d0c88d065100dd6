package modules

import (
	"sort"
	"strings"
)

// Factory creates the root of a module for one test run. It is called once per test, the first
// time any VU of that test imports the module. A runner receives the factories of its Go
// modules in its configuration (js.Config.Modules); there is no process-wide registry, so two
// test runs in one process never share module state or defaults.
type Factory func() Module

// Builtin names of the modules the runner always provides.
const (
	NameK6        = "k6"
	NameMetrics   = "k6/metrics"
	NameExecution = "k6/execution"
	NameTimers    = "k6/timers"
	NameEncoding  = "k6/encoding"
	NameCrypto    = "k6/crypto"
	NameData      = "k6/data"
)

// IsBuiltin reports whether name is one of the modules the runner always provides.
func IsBuiltin(name string) bool {
	switch name {
	case NameK6, NameMetrics, NameExecution, NameTimers, NameEncoding, NameCrypto, NameData:
		return true
	}
	return false
}

// Names returns the sorted names in a factory set, for "unknown module" messages; dnecho's
// internal modules (named "dnecho/...") are left out.
func Names(set map[string]Factory) []string {
	names := make([]string, 0, len(set))
	for n := range set {
		if !strings.HasPrefix(n, "dnecho/") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Stateless returns the root of a module that keeps no state, shared or per VU: exports builds a
// VU's exports.
func Stateless(exports func(vu VU) Exports) Module { return statelessRoot(exports) }

type statelessRoot func(VU) Exports

func (f statelessRoot) NewModuleInstance(vu VU) (Instance, error) {
	return statelessInstance{f: f, vu: vu}, nil
}

type statelessInstance struct {
	f  statelessRoot
	vu VU
}

func (i statelessInstance) Exports() Exports { return i.f(i.vu) }
