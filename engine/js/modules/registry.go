package modules

import (
	"fmt"
	"sort"
	"sync"
)

// Factory creates the root of a module for one test run. It is called once per test, the first
// time any VU of that test imports the module.
type Factory func() Module

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a Go module importable by name in every test run of this process, in the way
// Go extensions plug into k6: call it from an init function of the extension package, e.g.
// `modules.Register("k6/x/dnecho", dnecho.New)`.
//
// Like database/sql.Register it panics when the name is empty or already registered: both are
// programming errors found at start-up. Names of the built-in modules (k6, k6/metrics,
// k6/execution) cannot be registered. A name may also be an https:// URL, which then resolves
// to the Go module instead of failing as a remote import.
func Register(name string, f Factory) {
	if name == "" || f == nil {
		panic("modules: Register needs a name and a factory")
	}
	if IsBuiltin(name) {
		panic(fmt.Sprintf("modules: %q is a built-in module", name))
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("modules: Register called twice for %q", name))
	}
	registry[name] = f
}

// Registered returns a copy of the process-wide registrations made with Register.
func Registered() map[string]Factory {
	registryMu.RLock()
	defer registryMu.RUnlock()
	m := make(map[string]Factory, len(registry))
	for k, v := range registry {
		m[k] = v
	}
	return m
}

// Builtin names of the modules the runner always provides.
const (
	NameK6        = "k6"
	NameMetrics   = "k6/metrics"
	NameExecution = "k6/execution"
)

// IsBuiltin reports whether name is one of the modules the runner always provides.
func IsBuiltin(name string) bool {
	return name == NameK6 || name == NameMetrics || name == NameExecution
}

// Names returns the sorted names in a factory set; used for "unknown module" messages.
func Names(set map[string]Factory) []string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
