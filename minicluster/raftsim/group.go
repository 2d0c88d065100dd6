package raftsim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Defaults of GroupOptions: Ozone's DataNode settings (docs/ozone-ratis.md#datanode-side).
const (
	// DefaultContainerExecutors is hdds.container.ratis.num.container.op.executors: applies of
	// different containers run in parallel on this many threads per replica.
	DefaultContainerExecutors = 10
	// DefaultPendingWrites is hdds.ratis.raft.server.write.element-limit: writes a leader holds
	// before it fails further ones with ResourceUnavailableException.
	DefaultPendingWrites = 1024
	// DefaultRetryCacheExpiry is hdds.ratis.server.retry-cache.timeout.duration.
	DefaultRetryCacheExpiry = 600 * time.Second
	// DefaultWatchTimeout is hdds.ratis.raft.server.watch.timeout.
	DefaultWatchTimeout = 30 * time.Second
)

// GroupOptions configures a Group. The zero value is member 0 leading, no replication delay.
type GroupOptions struct {
	// Leader is the index of the first leader, the member SCM suggested (its peer priority is 1).
	Leader int
	// Delays are the per-member replication delays: how long after the leader logs a write each
	// member holds it (the leader's own entry is its log-write delay). Missing entries are 0.
	Delays []time.Duration
	// ReadyDelay keeps a new leader answering LeaderNotReady at least this long after a move.
	ReadyDelay time.Duration
	// ContainerExecutors, PendingWrites, RetryCacheExpiry, WatchTimeout: see the defaults.
	ContainerExecutors int
	PendingWrites      int
	RetryCacheExpiry   time.Duration
	WatchTimeout       time.Duration
	// OnRequest, when set, sees every request a member's ordered stream receives once the
	// stream knows its group, before the window: for tests that check what a client sends
	// (sequence numbers, isFirst, call ids). It runs on the stream's goroutine.
	OnRequest func(Received)
}

// Received is one request as a member's ordered stream received it (GroupOptions.OnRequest).
type Received struct {
	// Member is the receiving member's index, Stream the stream (counting the group's ordered
	// streams from 1, in the order they sent their first request).
	Member int
	Stream uint64
	Req    *ratispb.RaftClientRequestProto
}

func (o GroupOptions) withDefaults(n int) (GroupOptions, error) {
	if o.Leader < -1 || o.Leader >= n {
		return o, fmt.Errorf("raftsim: option Leader %d: want -1 (none) or a member index below %d", o.Leader, n)
	}
	if len(o.Delays) > n {
		return o, fmt.Errorf("raftsim: option Delays has %d entries for %d members", len(o.Delays), n)
	}
	for _, d := range append(o.Delays, o.ReadyDelay) {
		if d < 0 {
			return o, errors.New("raftsim: delays must be >= 0")
		}
	}
	if o.ContainerExecutors <= 0 {
		o.ContainerExecutors = DefaultContainerExecutors
	}
	if o.PendingWrites <= 0 {
		o.PendingWrites = DefaultPendingWrites
	}
	if o.RetryCacheExpiry <= 0 {
		o.RetryCacheExpiry = DefaultRetryCacheExpiry
	}
	if o.WatchTimeout <= 0 {
		o.WatchTimeout = DefaultWatchTimeout
	}
	return o, nil
}

// Group is one pipeline's Raft group. Its methods are safe for concurrent use.
type Group struct {
	id      [16]byte
	idText  string
	members []*member
	opts    GroupOptions
	ctx     context.Context // ends the group's goroutines; cancelled by Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu         sync.Mutex
	leader     int // -1: no leader
	priority   int // the member created as leader keeps priority 1 in its peer
	ready      bool
	readyTimer *time.Timer
	noopAt     time.Time // when this term's first entry was applied on the leader
	term       uint64
	last       uint64 // last log index
	commit     uint64
	entries    map[uint64]*entry // logged, not yet applied on every member
	pending    int               // writes logged by a leader and not yet applied there
	streams    map[*orderedStream]int
	nstreams   uint64        // ordered streams bound so far
	commitWait chan struct{} // closed when commit advances
	failed     string
	stats      counters
	closed     bool
}

type counters struct {
	notLeader, notReady, cacheHits, rejected, streamErrors uint64
	ends                                                   [numStreamEnds]uint64
}

// streamEnd is how an ordered stream ended.
type streamEnd int

const (
	endByServer   streamEnd = iota // the server ended it: a step-down (OK) or a stream error
	endHalfClosed                  // the client half-closed it, then the server ended it
	endCancelled                   // the client cancelled it (RST_STREAM) or its connection went away
	numStreamEnds
)

// NewGroup builds the group of the pipeline with this id and members (in pipeline order) and
// starts its replication goroutines; Close stops them. Every member's DataNode must serve it
// (Service.Join). The log starts at index 1, the first leader's election entry, applied.
func NewGroup(pipelineID string, members []Replica, opts GroupOptions) (*Group, error) {
	id, err := hddspb.ParseUUIDText(pipelineID)
	if err != nil {
		return nil, fmt.Errorf("raftsim: pipeline id: %w", err)
	}
	if len(members) == 0 {
		return nil, errors.New("raftsim: a group needs at least one member")
	}
	if opts, err = opts.withDefaults(len(members)); err != nil {
		return nil, err
	}
	g := &Group{id: id, idText: pipelineID, opts: opts, leader: opts.Leader, priority: opts.Leader,
		ready: true, term: 1, last: 1, commit: 1, entries: map[uint64]*entry{}, streams: map[*orderedStream]int{},
		commitWait: make(chan struct{})}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	for i, r := range members {
		m := &member{g: g, idx: i, r: r, appended: 1, applyNext: 2, delayChanged: make(chan struct{}),
			signal: make(chan struct{}, 1), cache: newRetryCache(opts.RetryCacheExpiry),
			containers: map[int64]*applyQueue{}, unhealthy: map[int64]bool{},
			exec: make(chan struct{}, opts.ContainerExecutors)}
		if i < len(opts.Delays) {
			m.delay = opts.Delays[i]
		}
		g.members = append(g.members, m)
	}
	for _, m := range g.members {
		g.wg.Add(1)
		go m.appendLoop()
	}
	return g, nil
}

// ID returns the pipeline id (the group id as UUID text).
func (g *Group) ID() string { return g.idText }

// LogID is the group as Ratis logs it ("group-1C2D3E4F5A6B").
func (g *Group) LogID() string { return ratispb.LogID("group-", g.id[:]) }

// majority is how many members must hold an entry for it to commit.
func (g *Group) majority() int { return len(g.members)/2 + 1 }

// Leader returns the leader's member index, -1 when there is none.
func (g *Group) Leader() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.leader
}

// TransferLeadership makes member to the leader (-1: no leader, so every member answers
// NotLeader without naming one). The old leader answers its streams' unanswered requests with
// NotLeader and ends those streams with status OK; the new one logs an election entry and
// answers LeaderNotReady until it has applied it (and ReadyDelay has passed).
func (g *Group) TransferLeadership(to int) error {
	g.mu.Lock()
	switch {
	case g.closed:
		g.mu.Unlock()
		return errors.New("raftsim: group closed")
	case to < -1 || to >= len(g.members):
		g.mu.Unlock()
		return fmt.Errorf("raftsim: leader %d: want -1 (none) or a member index below %d", to, len(g.members))
	case to == g.leader:
		g.mu.Unlock()
		return nil
	}
	old := g.leader
	g.leader, g.ready, g.noopAt = to, false, time.Time{}
	g.term++
	if g.readyTimer != nil {
		g.readyTimer.Stop()
	}
	var down []*orderedStream
	for st, at := range g.streams {
		if at == old {
			down = append(down, st)
		}
	}
	if to >= 0 {
		g.appendLocked(&entry{noop: true}, to)
	}
	g.mu.Unlock()
	for _, st := range down {
		st.stepDown()
	}
	return nil
}

// SetDelay changes one member's replication delay; entries already waiting use the new one.
func (g *Group) SetDelay(member int, d time.Duration) error {
	if member < 0 || member >= len(g.members) || d < 0 {
		return fmt.Errorf("raftsim: delay %s for member %d: want a member index below %d and a delay >= 0", d, member, len(g.members))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.members[member]
	m.delay = d
	close(m.delayChanged)
	m.delayChanged = make(chan struct{})
	return nil
}

// SetReadyDelay changes ReadyDelay; a leader waiting out the old one waits out the new one.
func (g *Group) SetReadyDelay(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opts.ReadyDelay = d
	if !g.ready && !g.noopAt.IsZero() {
		g.armReadyLocked()
	}
}

// Stats describe the group, for tests and the cluster command.
type Stats struct {
	Leader               int
	Term                 uint64
	LastIndex, Committed uint64
	// Applied counts the writes each member has applied (election entries not included).
	Applied []uint64
	// Replies by kind: NotLeader, LeaderNotReady, writes answered from the retry cache, writes
	// the leader rejected (stateMachineException before logging).
	NotLeader, LeaderNotReady, CacheHits, Rejected uint64
	// StreamErrors counts ordered streams ended with an error status.
	StreamErrors uint64
	// HalfClosed counts ordered streams the client ended as the Java client does, with a
	// half-close (the server then answers what it took and ends the stream with OK); Cancelled
	// those it ended with RST_STREAM, or whose connection went away, before the server ended
	// them. A real DataNode logs a WARN "onError: …CANCELLED: client cancelled" for each of the
	// latter (docs/ozone-ratis.md#the-ordered-stream).
	HalfClosed, Cancelled uint64
	// Failed says why the pipeline failed (a write's apply failed on a replica); "" when healthy.
	Failed string
}

// Stats returns a snapshot.
func (g *Group) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := Stats{Leader: g.leader, Term: g.term, LastIndex: g.last, Committed: g.commit, Failed: g.failed,
		NotLeader: g.stats.notLeader, LeaderNotReady: g.stats.notReady, CacheHits: g.stats.cacheHits,
		Rejected: g.stats.rejected, StreamErrors: g.stats.streamErrors,
		HalfClosed: g.stats.ends[endHalfClosed], Cancelled: g.stats.ends[endCancelled]}
	for _, m := range g.members {
		s.Applied = append(s.Applied, m.applied.Load())
	}
	return s
}

// Close stops the group's goroutines (applies in progress see their context end).
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	if g.readyTimer != nil {
		g.readyTimer.Stop()
	}
	g.mu.Unlock()
	g.cancel()
	g.wg.Wait()
}

// memberOf returns the member with this peer id, or nil.
func (g *Group) memberOf(peerID string) *member {
	for _, m := range g.members {
		if m.r.PeerID() == peerID {
			return m
		}
	}
	return nil
}

// addStream and removeStream track the ordered streams bound to the group, by member, and
// how they ended; addStream returns the stream's number.
func (g *Group) addStream(st *orderedStream, m *member) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams[st] = m.idx
	g.nstreams++
	return g.nstreams
}

func (g *Group) removeStream(st *orderedStream, end streamEnd) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.streams, st)
	g.stats.ends[end]++
}

// countStreamError books a stream ended with an error.
func (g *Group) countStreamError() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stats.streamErrors++
}
