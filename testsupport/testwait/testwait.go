// Package testwait is the one way tests, their helpers and the benchmark harness wait for
// something another goroutine or process does: Eventually polls a condition until it holds or a
// deadline passes, failing the test; Until is the same poll returning an error, for code without
// a testing.TB and for tests whose failure message needs what they last saw. Tests whose waits are on timers use
// testing/synctest instead, where time is virtual and nothing needs polling.
package testwait

import (
	"fmt"
	"testing"
	"time"
)

// Timeout is the deadline tests pass to Eventually unless they wait for something known to be
// slower (a JVM, a KDC): long enough for a loaded CI machine, short enough to fail in one sitting.
const Timeout = 20 * time.Second

// maxPoll caps the pause between polls: the first polls come at once, so a fast condition costs
// little time, and later ones back off, so a slow one (an HTTP probe, a file read) costs little CPU.
const maxPoll = 50 * time.Millisecond

// Eventually polls cond until it holds, failing t after timeout with what (the condition, e.g.
// "3 successes") in the message.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Until(timeout, what, cond); err != nil {
		t.Fatal(err)
	}
}

// Until polls cond until it holds, returning nil, or returns an error naming what once timeout
// has passed.
func Until(timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, maxPoll) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not reached within %s", what, timeout)
		}
		time.Sleep(pause)
	}
	return nil
}
