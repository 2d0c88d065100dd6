package raftsim_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// hour stands for "never" in replication delays.
const hour = time.Hour

// TestRetryCache: a write sent again with its (client id, call id), on a new stream, gets the
// first attempt's reply and is applied once; after the client lists the call id as replied,
// the same call id is a new write.
func TestRetryCache(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	client := hddspb.NewRandomUUID()
	first := p.openAs(t, 0, client)
	first.send(first.request(7, 1, true, write, nil))
	r1 := first.recv()
	if !r1.GetRpcReply().GetSuccess() || r1.GetLogIndex() == 0 || string(r1.GetRpcReply().GetReplyId()) != p.dns[0].UUID() {
		t.Fatalf("first attempt: %v", r1)
	}
	again := p.openAs(t, 0, client)
	again.send(again.request(7, 1, true, write, nil))
	if r2 := again.recv(); r2.GetLogIndex() != r1.GetLogIndex() {
		t.Fatalf("retry logged again: index %d, first %d", r2.GetLogIndex(), r1.GetLogIndex())
	}
	testwait.Eventually(t, testwait.Timeout, "every replica applies the write", func() bool { s := p.g.Stats(); return s.Applied[1] == 1 && s.Applied[2] == 1 })
	if s := p.g.Stats(); s.Applied[0] != 1 || s.CacheHits != 1 {
		t.Fatalf("stats %+v", s)
	}
	q := again.request(8, 2, false, read, nil)
	q.RpcRequest.RepliedCallIds = []uint64{7}
	again.send(q)
	again.recv()
	again.send(again.request(7, 3, false, write, nil))
	if r3 := again.recv(); r3.GetLogIndex() <= r1.GetLogIndex() {
		t.Fatalf("call id 7 after eviction: index %d, first %d", r3.GetLogIndex(), r1.GetLogIndex())
	}
}

// TestLeaderMove: a follower names the leader; a leader that steps down answers its unanswered
// write with NotLeader naming the new leader and ends the stream with OK; the new leader says
// LeaderNotReady until ready, then answers the retried write from its retry cache: applied once.
func TestLeaderMove(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, hour, hour}}, dns(3)...)
	f := p.open(t, 1)
	f.send(f.request(1, 1, true, read, nil))
	nl := f.recv().GetNotLeaderException()
	if string(nl.GetSuggestedLeader().GetId()) != p.dns[0].UUID() || len(nl.GetPeersInConf()) != 3 ||
		nl.GetSuggestedLeader().GetClientAddress() != "127.0.0.1:"+strconv.Itoa(p.dns[0].RatisPort()) {
		t.Fatalf("NotLeader %v", nl)
	}

	client := hddspb.NewRandomUUID()
	old := p.openAs(t, 0, client)
	old.send(old.request(5, 1, true, write, nil)) // logged, not committed: no follower holds it
	testwait.Eventually(t, testwait.Timeout, "the write is logged", func() bool { return p.g.Stats().LastIndex == 2 })
	p.g.SetReadyDelay(hour)
	if err := p.g.TransferLeadership(1); err != nil {
		t.Fatal(err)
	}
	replies := old.end()
	if len(replies) != 1 || string(replies[0].GetNotLeaderException().GetSuggestedLeader().GetId()) != p.dns[1].UUID() {
		t.Fatalf("stepping down: %v", replies)
	}
	if err := p.g.SetDelay(1, 0); err != nil { // DN1 now holds the write and the election entry: both commit
		t.Fatal(err)
	}
	testwait.Eventually(t, testwait.Timeout, "the new leader applies the write", func() bool { return p.g.Stats().Applied[1] == 1 })
	retry := p.openAs(t, 1, client)
	retry.send(retry.request(6, 1, true, write, nil))
	if r := retry.recv(); r.GetLeaderNotReadyException() == nil {
		t.Fatalf("new write before the new leader is ready: %v", r)
	}
	retry = p.openAs(t, 1, client)
	retry.send(retry.request(5, 1, true, write, nil))
	if r := retry.recv(); !r.GetRpcReply().GetSuccess() || r.GetLogIndex() != 2 {
		t.Fatalf("retry of an applied write, from the cache before ready: %v", r)
	}
	p.g.SetReadyDelay(0)
	retry = p.openAs(t, 1, client)
	retry.send(retry.request(6, 1, true, write, nil))
	if r := retry.recv(); !r.GetRpcReply().GetSuccess() || r.GetLogIndex() != 4 {
		t.Fatalf("new write once ready: %v", r)
	}
	if s := p.g.Stats(); s.Applied[1] != 2 || s.Term != 2 || s.LastIndex != 4 || s.LeaderNotReady != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// TestReplication: a write commits when a majority holds it (its latency is at least the
// delay of the second-fastest replica), reads are served by the leader meanwhile.
func TestReplication(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, hour, hour}}, dns(3)...)
	w := p.open(t, 0)
	start := time.Now()
	w.send(w.request(1, 1, true, write, nil))
	r := p.open(t, 0)
	r.send(r.request(1, 1, true, read, nil))
	if rep := r.recv(); !rep.GetRpcReply().GetSuccess() {
		t.Fatalf("read while the write waits: %v", rep)
	}
	const delay = 40 * time.Millisecond
	if err := p.g.SetDelay(2, delay); err != nil {
		t.Fatal(err)
	}
	if rep := w.recv(); !rep.GetRpcReply().GetSuccess() {
		t.Fatalf("write: %v", rep)
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("write answered after %s, before the majority's delay %s", took, delay)
	}
	if s := p.g.Stats(); s.Applied[1] != 0 || s.Committed != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// TestOneMember: a RATIS/ONE pipeline commits on its only member.
func TestOneMember(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	r := p.open(t, 0)
	r.send(r.request(1, 1, true, watch, nil))
	r.send(r.request(2, 2, false, write, nil))
	r.send(r.request(3, 3, false, read, nil))
	replies := r.end()
	if len(replies) != 3 || replies[0].GetLogIndex() != 1 || replies[1].GetLogIndex() != 2 || !replies[2].GetRpcReply().GetSuccess() {
		t.Fatalf("replies %v", replies)
	}
}

// TestWriteRules: a container the leader holds CLOSED rejects a write before logging it; a
// container a follower lacks fails that follower's apply, which fails the pipeline; too many
// pending writes end the stream with ResourceUnavailableException.
func TestWriteRules(t *testing.T) {
	closed := startPipeline(t, raftsim.GroupOptions{}, dnsim.Options{Containers: map[int64]int32{1: 0},
		ContainerStates: map[int64]hddspb.LifeCycleState{1: hddspb.LifeCycleState_CLOSED}})
	r := closed.open(t, 0)
	r.send(r.request(1, 1, true, write, nil))
	if sme := r.recv().GetStateMachineException(); sme.GetExceptionClassName() != ratispb.ClassContainerNotOpen ||
		sme.GetErrorMsg() != "Container 1 in CLOSED state" {
		t.Fatalf("write to a CLOSED container: %v", sme)
	}
	if s := closed.g.Stats(); s.Rejected != 1 || s.LastIndex != 1 {
		t.Fatalf("stats %+v", s)
	}

	lacking := startPipeline(t, raftsim.GroupOptions{}, dnsim.Options{}, dnsim.Options{}, dnsim.Options{Containers: map[int64]int32{}})
	r = lacking.open(t, 0)
	r.send(r.request(1, 1, true, write, nil))
	if rep := r.recv(); !rep.GetRpcReply().GetSuccess() {
		t.Fatalf("write: %v", rep)
	}
	testwait.Eventually(t, testwait.Timeout, "the pipeline fails", func() bool { return lacking.g.Stats().Failed != "" })

	full := startPipeline(t, raftsim.GroupOptions{PendingWrites: 2, Delays: []time.Duration{0, hour, hour}}, dns(3)...)
	r = full.open(t, 0)
	for i := uint64(1); i <= 3; i++ {
		r.send(r.request(i, i, i == 1, write, nil))
	}
	if code, class := r.streamError(); code != codes.Internal || class != ratispb.ClassResourceUnavailable {
		t.Fatalf("third pending write: %v %q", code, class)
	}
}

// TestHandlerCount: with one handler, read Echoes on separate streams queue for it; with ten
// they run side by side (the queueing HDDS-11224 reported).
func TestHandlerCount(t *testing.T) {
	for _, n := range []int{1, 10} {
		p := startPipeline(t, raftsim.GroupOptions{}, dnsim.Options{HandlerCount: n})
		var wg sync.WaitGroup
		for range 4 {
			r := p.open(t, 0)
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.send(r.request(1, 1, true, read, echo(1, 100, true)))
				r.end()
			}()
		}
		wg.Wait()
		s := p.dns[0].Stats()
		switch {
		case n == 1 && (s.HandlersPeak != 1 || s.QueuedPeak < 1):
			t.Errorf("1 handler: %+v", s)
		case n == 10 && s.HandlersPeak < 2:
			t.Errorf("10 handlers: %+v", s)
		}
	}
}

// TestPeerAddresses: the peers in NotLeader and in commitInfos carry each member's addresses as
// a current DataNode's Ratis server has them (Ozone: RatisHelper.raftPeerBuilderFor):
// clientAddress on RATIS, address on RATIS_SERVER, adminAddress on RATIS_ADMIN.
func TestPeerAddresses(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	want := map[string][3]string{} // uuid → client, server, admin address
	for _, d := range p.dns {
		ports := map[string]string{}
		for _, pt := range d.Details().GetPorts() {
			ports[pt.GetName()] = "127.0.0.1:" + strconv.Itoa(int(pt.GetValue()))
		}
		want[d.UUID()] = [3]string{ports[ratispb.PortRatis], ports[ratispb.PortRatisServer], ports[ratispb.PortRatisAdmin]}
	}
	f := p.open(t, 1)
	f.send(f.request(1, 1, true, read, nil))
	nl := f.recv().GetNotLeaderException()
	l := p.open(t, 0)
	l.send(l.request(1, 1, true, read, nil))
	var infos []*ratispb.RaftPeerProto
	for _, ci := range l.recv().GetCommitInfos() {
		infos = append(infos, ci.GetServer())
	}
	for what, peers := range map[string][]*ratispb.RaftPeerProto{
		"suggestedLeader": {nl.GetSuggestedLeader()}, "peersInConf": nl.GetPeersInConf(), "commitInfos": infos} {
		if len(peers) == 0 {
			t.Fatalf("%s: no peers", what)
		}
		for _, pr := range peers {
			w := want[string(pr.GetId())]
			if got := [3]string{pr.GetClientAddress(), pr.GetAddress(), pr.GetAdminAddress()}; got != w || w[0] == w[1] || w[0] == w[2] || w[1] == w[2] {
				t.Errorf("%s: peer %s has client, server, admin addresses %q; want %q, three ports", what, pr.GetId(), got, w)
			}
		}
	}
}
