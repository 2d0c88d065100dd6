package echo

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// health watches call outcomes for the re-resolution rule (see Session). Its hot path is one
// atomic load per successful call; the failure path touches the rest.
type health struct {
	failingSince atomic.Int64 // Unix ns of the first UNAVAILABLE since the last other outcome; 0: none
	lastLookup   atomic.Int64 // Unix ns when the last re-resolution started
	resolving    atomic.Bool
	moved        atomic.Int64 // re-resolutions that moved the session
}

var labelUnavailable = datanode.CodeName(codes.Unavailable)

// observe books one call's outcome and starts a re-resolution when the rule says so.
func (h *health) observe(s *Session, r *Result) {
	if r.Label != labelUnavailable || r.Interrupted {
		if r.Interrupted {
			return
		}
		if h.failingSince.Load() != 0 {
			h.failingSince.Store(0)
		}
		return
	}
	if s.spec.NoReresolve {
		return
	}
	now := time.Now().UnixNano()
	since := h.failingSince.Load()
	if since == 0 {
		h.failingSince.CompareAndSwap(0, now)
		return
	}
	after := int64(s.spec.ReresolveAfter)
	if now-since < after || now-h.lastLookup.Load() < after || !h.resolving.CompareAndSwap(false, true) {
		return
	}
	h.lastLookup.Store(now)
	if !s.startBackground(func() { s.reresolve(time.Duration(now - since)) }) {
		h.resolving.Store(false)
	}
}

// startBackground runs f in a goroutine the session waits for on Close; false when closed.
func (s *Session) startBackground(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// reresolve looks the container up again and moves the session when SCM lists something new.
func (s *Session) reresolve(failing time.Duration) {
	defer s.health.resolving.Store(false)
	old := s.gen.Load()
	s.obs.emit(Event{Kind: EventReresolving, Field: FieldNoReresolve, Message: fmt.Sprintf(
		"every call to the pipeline of container %d has failed with UNAVAILABLE for %s: looking the container up again from SCM",
		s.spec.ContainerID, failing.Round(time.Second))})
	t, err := lookup(s.ctx, s.spec, nil)
	if err != nil {
		s.obs.emit(Event{Kind: EventReresolveFailed, Message: fmt.Sprintf(
			"looking container %d up again failed (carrying on with the pipeline found before): %v", s.spec.ContainerID, err)})
		return
	}
	if samePlace(old.placement, t) {
		s.obs.emit(Event{Kind: EventReresolveFailed, Message: fmt.Sprintf(
			"SCM still lists container %d on the same DataNodes and ports; carrying on", s.spec.ContainerID)})
		return
	}
	if s.writes.Load() && !s.spec.UnsafeWrite {
		if err := checkWrite(t); err != nil {
			s.obs.emit(Event{Kind: EventReresolveFailed, Message: fmt.Sprintf(
				"container %d moved, but carrying on with the old pipeline: %v", s.spec.ContainerID, err)})
			return
		}
	}
	p, err := newGenerationPool(s.spec, t, s.net)
	if err != nil {
		s.obs.emit(Event{Kind: EventReresolveFailed, Message: fmt.Sprintf(
			"container %d moved, but its new pipeline cannot be used (carrying on with the old one): %v", s.spec.ContainerID, err)})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		p.close()
		return
	}
	s.gen.Store(newGeneration(t, p))
	s.health.failingSince.Store(0)
	s.health.moved.Add(1)
	// Calls in flight on the old clients end within one deadline; then their connections go.
	r := &retiredGen{gen: old}
	r.timer = time.AfterFunc(old.pool.timeout()+time.Second, old.pool.close)
	s.retired = append(s.retired, r)
	s.obs.emit(Event{Kind: EventReresolved, Message: "calls now go to " + t.Describe()})
}

// samePlace reports whether two lookups found the same pipeline on the same addresses.
func samePlace(a, b *Placement) bool {
	return a.PipelineID() == b.PipelineID() && slices.Equal(places(a.Pipeline), places(b.Pipeline))
}

// places lists the members' ids, addresses and ports.
func places(p *hddspb.Pipeline) []string {
	var out []string
	for _, m := range p.GetMembers() {
		var ports []string
		for _, pt := range m.GetPorts() {
			ports = append(ports, fmt.Sprintf("%s=%d", pt.GetName(), pt.GetValue()))
		}
		out = append(out, strings.Join([]string{hddspb.DatanodeUUID(m), m.GetIpAddress(), m.GetHostName(), strings.Join(ports, ",")}, " "))
	}
	return out
}
