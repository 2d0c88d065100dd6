package modules

import "github.com/dnecho/dnecho/engine/execinfo"

// ExecutionState is what the scheduler tells scripts about the whole instance (exec.instance). The
// scheduler implements it; methods may be called from any VU goroutine at any time.
type ExecutionState interface {
	InstanceStats() execinfo.InstanceStats
}
