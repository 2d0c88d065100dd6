package main

import (
	"fmt"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// validate checks the aggregator's numbers before it listens: a zero or negative value is an
// error naming the flag, not silently replaced by a default.
func (f *aggregateFlags) validate(changed func(string) bool) error {
	bad := func(format string, a ...any) error { return withCode(exitcode.InvalidConfig, fmt.Errorf(format, a...)) }
	switch {
	case changed("instances") && f.instances < 1:
		return bad("--instances %d: at least 1 (leave it out to count the segments of the instances' sequence)", f.instances)
	case f.interval <= 0:
		return bad("--threshold-interval %s: must be positive, e.g. 2s", f.interval)
	case f.joinTimeout <= 0:
		return bad("--join-timeout %s: must be positive, e.g. 1m", f.joinTimeout)
	}
	return nil
}
