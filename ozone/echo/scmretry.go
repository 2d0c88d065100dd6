package echo

import (
	"sync"
	"sync/atomic"

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
