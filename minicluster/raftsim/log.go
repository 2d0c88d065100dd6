package raftsim

import (
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// entry is one log entry: a write Echo, or the no-op a new leader logs first.
type entry struct {
	index, term uint64
	noop        bool
	key         cacheKey
	header      *dnpb.ContainerCommandRequestProto // as logged: no token, pipelineID set
	loggedAt    time.Time
	leader      int // member that logged it
	appliedOn   int
}

// member is one replica of the group. Fields without a comment are guarded by g.mu.
type member struct {
	g            *Group
	idx          int
	r            Replica
	delay        time.Duration
	delayChanged chan struct{} // closed when delay changes
	queue        []*entry      // logged by the leader, not yet held here
	signal       chan struct{} // wakes appendLoop; capacity 1
	appended     uint64        // last index this member holds
	applyNext    uint64        // next index to hand to the apply queues
	containers   map[int64]*applyQueue
	unhealthy    map[int64]bool
	cache        *retryCache   // own lock
	exec         chan struct{} // container executors; own synchronisation
	applied      atomic.Uint64 // writes applied
}

// appendLocked logs e at the next index on leader's behalf and sends it to every member.
func (g *Group) appendLocked(e *entry, leader int) {
	g.last++
	e.index, e.term, e.loggedAt, e.leader = g.last, g.term, time.Now(), leader
	g.entries[e.index] = e
	if !e.noop {
		g.pending++
	}
	for _, m := range g.members {
		m.queue = append(m.queue, e)
		select {
		case m.signal <- struct{}{}:
		default:
		}
	}
}

// appendLoop makes the member hold each entry its delay after the leader logged it, in order.
func (m *member) appendLoop() {
	g := m.g
	defer g.wg.Done()
	for {
		g.mu.Lock()
		if len(m.queue) == 0 {
			g.mu.Unlock()
			select {
			case <-m.signal:
				continue
			case <-g.ctx.Done():
				return
			}
		}
		e, due, changed := m.queue[0], m.queue[0].loggedAt.Add(m.delay), m.delayChanged
		g.mu.Unlock()
		if d := time.Until(due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-changed:
				t.Stop()
				continue
			case <-g.ctx.Done():
				t.Stop()
				return
			}
		}
		g.mu.Lock()
		m.queue = m.queue[1:]
		g.heldLocked(m, e.index)
		g.mu.Unlock()
	}
}

// heldLocked records that m holds the log up to index, advances the commit index to what a
// majority holds, and hands newly committed entries to the members' apply queues.
func (g *Group) heldLocked(m *member, index uint64) {
	m.appended = index
	held := make([]uint64, len(g.members))
	for i, mm := range g.members {
		held[i] = mm.appended
	}
	slices.Sort(held)
	if c := held[len(held)-g.majority()]; c > g.commit {
		g.commit = c
		close(g.commitWait)
		g.commitWait = make(chan struct{})
		for _, mm := range g.members {
			g.pumpLocked(mm)
		}
		return
	}
	g.pumpLocked(m)
}

// pumpLocked hands m the committed entries it holds, in log order. Ratis's state machine
// updater does this; the retry-cache entry exists from then on, so a retry that arrives while
// the apply runs waits for it.
func (g *Group) pumpLocked(m *member) {
	for limit := min(g.commit, m.appended); m.applyNext <= limit; m.applyNext++ {
		e := g.entries[m.applyNext]
		if e == nil {
			continue
		}
		if e.noop {
			g.appliedLocked(m, e)
			if m.idx == g.leader && e.term == g.term {
				g.noopAt = time.Now()
				g.armReadyLocked()
			}
			continue
		}
		ce := m.cache.getOrCreate(e.key)
		c := e.header.GetContainerID()
		q := m.containers[c]
		if q == nil {
			q = &applyQueue{}
			m.containers[c] = q
		}
		q.items = append(q.items, applyItem{e: e, ce: ce})
		if !q.running {
			q.running = true
			g.wg.Add(1)
			go m.runQueue(c, q)
		}
	}
}

// armReadyLocked makes the leader ready once ReadyDelay has passed since its election entry
// was applied.
func (g *Group) armReadyLocked() {
	if g.readyTimer != nil {
		g.readyTimer.Stop()
	}
	wait := time.Until(g.noopAt.Add(g.opts.ReadyDelay))
	if wait <= 0 {
		g.ready = true
		return
	}
	term := g.term
	g.readyTimer = time.AfterFunc(wait, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.term == term && !g.closed {
			g.ready = true
		}
	})
}

// appliedLocked books an entry applied on m and forgets it once every member has.
func (g *Group) appliedLocked(m *member, e *entry) {
	e.appliedOn++
	if !e.noop && e.leader == m.idx {
		g.pending--
	}
	if e.appliedOn == len(g.members) {
		delete(g.entries, e.index)
	}
}

// applyQueue serialises the applies of one container on one member (Ozone:
// ContainerStateMachine runs them one at a time per container).
type applyQueue struct {
	items   []applyItem
	running bool
}

type applyItem struct {
	e  *entry
	ce *cacheEntry
}

// runQueue applies a container's entries in order until its queue is empty.
func (m *member) runQueue(container int64, q *applyQueue) {
	g := m.g
	defer g.wg.Done()
	for {
		g.mu.Lock()
		if len(q.items) == 0 {
			q.running = false
			g.mu.Unlock()
			return
		}
		it := q.items[0]
		q.items = q.items[1:]
		unhealthy := m.unhealthy[container]
		g.mu.Unlock()
		select {
		case m.exec <- struct{}{}:
		case <-g.ctx.Done():
			return
		}
		ok := m.apply(it, unhealthy)
		<-m.exec
		if !ok {
			return
		}
	}
}

// apply runs one write on the member, completes its retry-cache entry with the reply the member
// would send as leader, and books a failed apply as the pipeline failing
// (docs/ozone-ratis.md#dangerous-cases). It returns false when the group is closing.
func (m *member) apply(it applyItem, unhealthy bool) bool {
	g, e := m.g, it.e
	var resp *dnpb.ContainerCommandResponseProto
	if unhealthy {
		resp = &dnpb.ContainerCommandResponseProto{CmdType: e.header.CmdType, TraceID: proto.String(e.header.GetTraceID()),
			Result: dnpb.Result_CONTAINER_UNHEALTHY.Enum(), Message: proto.String("Prev writes to container " +
				strconv.FormatInt(e.header.GetContainerID(), 10) + " failed, stopping all writes to container")}
	} else {
		var err error
		if resp, err = m.r.Apply(g.ctx, e.header); err != nil {
			return false
		}
	}
	content, err := proto.Marshal(resp)
	if err != nil {
		return false
	}
	failed := !applyOK(resp.GetResult())
	g.mu.Lock()
	reply := g.replyLocked(m, e.key.client, e.key.call, []byte(m.r.PeerID()))
	reply.RpcReply.Success = true
	reply.LogIndex = e.index
	if failed {
		reply.RpcReply.Success = false
		reply.ExceptionDetails = smeDetails(stateMachineException(ratispb.ClassStorageContainer, resp.GetMessage()))
		m.unhealthy[e.header.GetContainerID()] = true
		if g.failed == "" {
			g.failed = "apply of log entry " + strconv.FormatUint(e.index, 10) + " failed on " + m.r.PeerID() + ": " +
				resp.GetResult().String() + " " + resp.GetMessage()
		}
	} else {
		reply.Message = &ratispb.ClientMessageEntryProto{Content: content}
	}
	g.appliedLocked(m, e)
	// Counted before the reply goes out, so that whoever holds the reply sees the apply in Stats.
	m.applied.Add(1)
	g.mu.Unlock()
	m.cache.complete(it.ce, reply)
	return true
}

// applyOK: results after which an apply counts as done. Besides SUCCESS, Ozone exempts three
// from failing the state machine (Ozone: ContainerStateMachine.applyTransaction).
func applyOK(r dnpb.Result) bool {
	switch r {
	case dnpb.Result_SUCCESS, dnpb.Result_CONTAINER_NOT_OPEN, dnpb.Result_CLOSED_CONTAINER_IO, dnpb.Result_CHUNK_FILE_INCONSISTENCY:
		return true
	}
	return false
}
