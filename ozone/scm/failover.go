package scm

import (
	"errors"
	"math"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// Which SCM the next attempt asks, and for how long: the failover policy of
// docs/ozone-scm.md#retry-timing with the handling of silent SCMs of
// docs/ozone-scm.md#a-silent-scm.

// nextAttempt returns the SCM to ask and how long it may stay silent.
func (c *Client) nextAttempt() (int, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current, c.quiet[c.current]
}

func (c *Client) currentNode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

// settle records how SCM idx ended an attempt: one that stayed silent gets
// twice as long next time, since a slow SCM cannot be told from a hung one
// until it answers (docs/ozone-scm.md#a-silent-scm).
func (c *Client) settle(idx int, err error) {
	var silence *hadooprpc.SilenceError
	silent := errors.As(err, &silence)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.silent[idx] = silent
	if silent && c.quiet[idx] < math.MaxInt64/2 {
		c.quiet[idx] *= 2
	}
}

// failover moves off node idx: to the suggested leader when the hint names
// another configured SCM, else round robin. An SCM whose last attempt stayed
// silent is passed over once, for the one after it: the others may answer
// sooner (a real group elects a new leader within seconds of its leader
// hanging, and its followers may still name the old one). The next time it
// is its turn it is asked, for twice as long. A concurrent call may already
// have moved. It notes the hint's use in r.
func (c *Client) failover(idx int, r *Retry) {
	r.Leader = leaderText(r.Err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != idx {
		return
	}
	hinted := c.hinted(idx, r)
	var order []int // the SCMs to ask next, best first
	if hinted >= 0 {
		order = append(order, hinted)
	}
	for k := 1; k < len(c.nodes); k++ {
		order = append(order, (idx+k)%len(c.nodes))
	}
	if len(order) == 0 {
		return // one SCM: ask it again
	}
	next := order[0] // when every other one stayed silent
	for _, i := range order {
		if !c.silent[i] {
			next = i
			break
		}
	}
	for _, i := range order {
		if i == next {
			break
		}
		c.silent[i] = false // passed over once
	}
	if hinted >= 0 && next != hinted {
		r.Hint = HintSilent
	}
	c.current = next
}

// hinted returns the configured SCM a not-leader answer names, -1 when none
// other than idx, and notes in r what the hint named. Called under mu.
func (c *Client) hinted(idx int, r *Retry) int {
	host, port, ok := suggestedLeader(r.Err)
	if !ok {
		return -1
	}
	r.Hint = HintUnknown
	for i, n := range c.nodes {
		switch {
		case !sameNode(n.Addr(), host, port):
		case i == idx:
			r.Hint = HintSelf
			return -1
		default:
			r.Hint = HintFollowed
			return i
		}
	}
	return -1
}
