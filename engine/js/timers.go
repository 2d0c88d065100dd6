package js

import "github.com/dnecho/dnecho/engine/js/modules"

// newTimersModule is k6/timers: the four global functions themselves (eventloop.TimerFunctions).
func newTimersModule() modules.Module {
	return modules.Stateless(func(vu modules.VU) modules.Exports {
		return modules.Exports{Named: (*VU)(vu.(*moduleVU)).timers}
	})
}
