package checktree

import "sync/atomic"

// Check is one named check inside a group, with its running counts. Name, Path, ID and Group never
// change.
type Check struct {
	Name, Path, ID string
	Group          *Group

	passes, fails atomic.Int64
}

// Record counts one result of the check: an atomic add, without the tree's lock.
func (c *Check) Record(pass bool) {
	if pass {
		c.passes.Add(1)
	} else {
		c.fails.Add(1)
	}
}

// Add counts results recorded elsewhere: a delta of another instance, a copy's counts.
func (c *Check) Add(passes, fails int64) {
	c.passes.Add(passes)
	c.fails.Add(fails)
}

// Counts returns the passes and failures recorded so far.
func (c *Check) Counts() (passes, fails int64) { return c.passes.Load(), c.fails.Load() }
