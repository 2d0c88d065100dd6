package echo

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/ozone/scm"
)

// scmRetries turns the SCM client's retries during one lookup into events. Each different
// account is said once: a lookup against a dead SCM retries every couple of seconds until the
// lookup timeout, and the line would repeat with nothing new in it.
type scmRetries struct {
	obs      Observer
	answered atomic.Bool // some SCM answered (not the leader, say): it is not silence

	mu   sync.Mutex
	said map[string]bool
}

func (r *scmRetries) report(x scm.Retry) {
	if x.Answered() {
		r.answered.Store(true)
	}
	r.mu.Lock()
	seen := r.said[x.Reason()]
	r.said[x.Reason()] = true
	r.mu.Unlock()
	if seen {
		return
	}
	kind := EventSCMRetry
	if x.NotLeader() {
		kind = EventSCMRedirect
	}
	r.obs.emit(Event{Kind: kind, Message: x.String()})
}

// stillWaiting says once, after 2 s (or half the lookup timeout), that the lookup is still
// waiting for SCM to answer, unless one has answered by then (not the leader, say: the retry
// lines tell what happens). A lookup normally takes milliseconds.
func (r *scmRetries) stillWaiting(s Spec) *time.Timer {
	return time.AfterFunc(min(2*time.Second, s.LookupTimeout/2), func() {
		if r.answered.Load() {
			return
		}
		r.obs.emit(Event{Kind: EventSlowLookup, Field: FieldLookupTimeout, Message: fmt.Sprintf(
			"still waiting for SCM to answer the lookup of container %d (retrying; giving up after %s)",
			s.ContainerID, s.LookupTimeout)})
	})
}
