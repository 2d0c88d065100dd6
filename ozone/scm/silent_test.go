package scm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// retries records what OnRetry hears.
type retries struct {
	mu   sync.Mutex
	seen []Retry
	hook func(Retry) // called with each, outside the lock
}

func (r *retries) add(x Retry) {
	r.mu.Lock()
	r.seen = append(r.seen, x)
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(x)
	}
}

func (r *retries) list() []Retry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Retry(nil), r.seen...)
}

// silence returns the SilenceError of a retry, nil when it was something else.
func silence(x Retry) *hadooprpc.SilenceError {
	var se *hadooprpc.SilenceError
	if errors.As(x.Err, &se) {
		return se
	}
	return nil
}

// The first SCM of the service hangs (its leadership passes to the next, as a real group
// elects a new leader): the client gives it up after RPCTimeout of silence and asks the next
// one at once, long before the caller's own deadline.
func TestHungFirstSCMIsLeft(t *testing.T) {
	// Long enough for a live emulated SCM to answer on a busy machine: scm2 must not look silent.
	const quiet = time.Second
	h := startHA(t, 3)
	must(t, h.Pause(0))
	var rec retries
	o := fastOptions("hadoop", h.Addrs()...)
	o.RPCTimeout, o.RetryInterval, o.OnRetry = quiet, quiet/4, rec.add // as 5 s and 2 s by default
	o.NodeIDs = []string{"scm1", "scm2", "scm3"}
	c := newClient(t, o)
	start := time.Now()
	if _, err := c.GetContainer(testCtx(t), 1); err != nil {
		t.Fatalf("GetContainer with scm1 hung: %v", err)
	}
	took := time.Since(start)
	got := rec.list()
	if len(got) != 1 || silence(got[0]) == nil || got[0].From.ID != "scm1" || got[0].To.ID != "scm2" || got[0].Pause != 0 {
		t.Fatalf("retries %+v, want one: scm1 silent, then scm2 at once", got)
	}
	want := "SCM scm1 (" + h.Addrs()[0] + ") did not answer in 1s: trying scm2 (" + h.Addrs()[1] + ")"
	if s := got[0].String(); s != want {
		t.Errorf("message %q, want %q", s, want)
	}
	if took < quiet {
		t.Errorf("took %s: scm1 was left before its quiet time %s", took, quiet)
	}
	if n := h.Node(0).Requests(); n != 0 {
		t.Errorf("the paused SCM handled %d requests", n)
	}
}

// A leader that stays silent and then comes back is not given up for good: the followers'
// hints naming it are passed over once, then followed, and it answers.
func TestSilentLeaderAskedAgain(t *testing.T) {
	h := startHA(t, 3)
	h.Node(0).Pause()
	var rec retries
	rec.hook = func(x Retry) {
		if silence(x) != nil {
			h.Node(0).Resume() // back once the client has given up on it
		}
	}
	o := fastOptions("hadoop", h.Addrs()...)
	o.RPCTimeout, o.OnRetry = time.Second, rec.add // live SCMs answer well within it, even on a busy machine
	c := newClient(t, o)
	if _, err := c.GetContainer(testCtx(t), 1); err != nil {
		t.Fatalf("GetContainer: %v", err)
	}
	got := rec.list()
	want := []struct {
		from, to int
		hint     HintUse
		silent   bool
	}{{0, 1, HintNone, true}, {1, 2, HintSilent, false}, {2, 0, HintFollowed, false}}
	if len(got) != len(want) {
		t.Fatalf("retries %+v, want %d", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.From.Addr != h.Addrs()[w.from] || g.To.Addr != h.Addrs()[w.to] || g.Hint != w.hint || (silence(g) != nil) != w.silent {
			t.Errorf("retry %d: %v, want node %d to %d, hint %d, silent %v", i, g, w.from, w.to, w.hint, w.silent)
		}
	}
}

// The leader hangs and the others elect a new one a little later, knowing no leader meanwhile:
// the client does not go back to the silent SCM as soon as its turn comes, but asks the others
// once more first, and finds the new leader.
func TestHungSCMPassedOverOnce(t *testing.T) {
	h := startHA(t, 3)
	h.Node(0).Pause()
	h.SetLeaderKnown(false)
	var rec retries
	rec.hook = func(x Retry) {
		if x.From.Addr == h.Addrs()[2] {
			must(t, h.SetLeader(1)) // elected once scm3 has answered
		}
	}
	o := fastOptions("hadoop", h.Addrs()...)
	o.RPCTimeout, o.OnRetry = time.Second, rec.add // live SCMs answer well within it, even on a busy machine
	c := newClient(t, o)
	if _, err := c.GetContainer(testCtx(t), 1); err != nil {
		t.Fatalf("GetContainer: %v", err)
	}
	var path []string
	for _, g := range rec.list() {
		path = append(path, g.From.Addr+">"+g.To.Addr)
	}
	a := h.Addrs()
	if want := []string{a[0] + ">" + a[1], a[1] + ">" + a[2], a[2] + ">" + a[1]}; strings.Join(path, " ") != strings.Join(want, " ") {
		t.Errorf("path %v, want %v (the silent scm1 passed over once)", path, want)
	}
}

// When no SCM answers before the caller's deadline, the error says what each one did: the one
// whose attempt the deadline cut short did not answer in that time, it did not "exceed a context".
func TestNoSCMAnswersSaysWhatEachDid(t *testing.T) {
	h := startHA(t, 2)
	h.Node(0).Pause()
	h.Node(1).Pause()
	o := fastOptions("hadoop", h.Addrs()...)
	o.RPCTimeout, o.NodeIDs = 100*time.Millisecond, []string{"scm1", "scm2"}
	ctx, cancel := context.WithTimeout(testCtx(t), 400*time.Millisecond)
	defer cancel()
	_, err := newClient(t, o).GetContainer(ctx, 1)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) || len(ue.Nodes) != 2 {
		t.Fatalf("err = %v, want an UnreachableError for the deadline", err)
	}
	for _, n := range ue.Nodes {
		if n.Err == nil || errors.Is(n.Err, context.DeadlineExceeded) || !strings.Contains(n.Err.Error(), "no answer") ||
			!strings.Contains(err.Error(), n.Node.String()+": ") {
			t.Errorf("%s: %v; want what it did (no answer), named in %q", n.Node, n.Err, err)
		}
	}
}

// An SCM slower than the quiet time is waited for longer on each turn until it answers: the
// quiet time doubles each time it stays silent.
func TestSlowSCMWaitedLonger(t *testing.T) {
	const delay, quiet = 300 * time.Millisecond, 100 * time.Millisecond
	addr := fakeSCM(t, func(ctx context.Context, _ rpcserver.CallInfo, _ []byte) (proto.Message, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &scmpb.ScmContainerLocationResponse{
			CmdType: scmpb.Type_GetContainer.Enum(), Status: scmpb.ScmContainerLocationResponse_OK.Enum(),
			GetContainerResponse: &scmpb.GetContainerResponseProto{ContainerInfo: &hddspb.ContainerInfoProto{
				ContainerID: proto.Int64(1), State: hddspb.LifeCycleState_OPEN.Enum(), UsedBytes: proto.Uint64(0),
				NumberOfKeys: proto.Uint64(0), Owner: proto.String("om1"), ReplicationType: hddspb.ReplicationType_RATIS.Enum()}},
		}, nil
	})
	var rec retries
	o := fastOptions("hadoop", addr)
	o.RPCTimeout, o.OnRetry = quiet, rec.add
	c := newClient(t, o)
	if _, err := c.GetContainer(testCtx(t), 1); err != nil {
		t.Fatalf("GetContainer from a slow SCM: %v", err)
	}
	got := rec.list()
	if len(got) < 2 {
		t.Fatalf("retries %+v: a %s answer should outlast %s and %s", got, delay, quiet, 2*quiet)
	}
	for i, g := range got {
		se := silence(g)
		if se == nil || se.After != quiet<<i || g.To != g.From {
			t.Errorf("retry %d: %v, want silent for %s, then the same SCM again", i, g, quiet<<i)
		}
	}
}

func TestRetryString(t *testing.T) {
	a := Node{ID: "scm1", Addr: "10.0.0.1:9860"}
	b := Node{ID: "scm2", Addr: "10.0.0.2:9860"}
	notLeader := &hadooprpc.RemoteError{Class: "org.apache.hadoop.hdds.ratis.ServerNotLeaderException", Message: "SCM Server:scm1 is not the leader."}
	silent := &hadooprpc.ConnError{Op: "read", Err: &hadooprpc.SilenceError{After: 5 * time.Second}}
	tests := []struct {
		r    Retry
		want string
	}{
		{Retry{From: a, To: b, Err: silent}, "SCM scm1 (10.0.0.1:9860) did not answer in 5s: trying scm2 (10.0.0.2:9860)"},
		{Retry{From: a, To: b, Err: &hadooprpc.ConnError{Op: "dial", Err: &hadooprpc.SilenceError{After: time.Second, Connecting: true}}},
			"SCM scm1 (10.0.0.1:9860) did not accept a connection in 1s: trying scm2 (10.0.0.2:9860)"},
		{Retry{From: a, To: b, Err: notLeader, Pause: 1999 * time.Millisecond, Leader: "10.0.0.2:9860", Hint: HintFollowed},
			"SCM scm1 (10.0.0.1:9860) is not the leader; it names scm2 (10.0.0.2:9860) as the leader: trying it in 2s"},
		{Retry{From: a, To: b, Err: notLeader, Pause: 2 * time.Second},
			"SCM scm1 (10.0.0.1:9860) is not the leader and does not know which SCM is: trying scm2 (10.0.0.2:9860) in 2s"},
		{Retry{From: a, To: b, Err: notLeader, Pause: 2 * time.Second, Leader: "localhost:9860", Hint: HintUnknown},
			"SCM scm1 (10.0.0.1:9860) is not the leader and names localhost:9860, which is not one of the configured SCMs: trying scm2 (10.0.0.2:9860) in 2s"},
		{Retry{From: a, To: b, Err: notLeader, Pause: 2 * time.Second, Leader: "10.0.0.1:9860", Hint: HintSelf},
			"SCM scm1 (10.0.0.1:9860) is not the leader and names itself (10.0.0.1:9860): trying scm2 (10.0.0.2:9860) in 2s"},
		{Retry{From: b, To: a, Err: notLeader, Pause: 2 * time.Second, Leader: "10.0.0.3:9860", Hint: HintSilent},
			"SCM scm2 (10.0.0.2:9860) is not the leader and names 10.0.0.3:9860, which did not answer: trying scm1 (10.0.0.1:9860) in 2s"},
		{Retry{From: Node{Addr: "h:1"}, To: Node{Addr: "h:1"}, Err: errors.New("connection refused"), Pause: 2 * time.Second},
			"SCM h:1 failed: connection refused: trying it again in 2s"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	if !(Retry{Err: notLeader}).Answered() || (Retry{Err: silent}).Answered() || !strings.Contains((Retry{Err: silent}).Reason(), "did not answer") {
		t.Error("Answered or Reason")
	}
}

// The hint of a real follower on one host names the leader's Raft host with the follower's own
// client port (docs/ozone-scm.md#leader-hint): when that is the follower itself the client moves
// on instead of asking it again.
func TestHintNamingItself(t *testing.T) {
	var self string // the fake follower's own address, known once it listens
	follower := fakeSCM(t, func(context.Context, rpcserver.CallInfo, []byte) (proto.Message, error) {
		return nil, &hadooprpc.RemoteError{Class: "org.apache.hadoop.hdds.ratis.ServerNotLeaderException",
			Message: "SCM Server:x is not the leader. Suggested leader is Server:" + self + "."}
	})
	self = follower
	leader := startSCM(t, scmsim.Config{})
	var rec retries
	o := fastOptions("hadoop", follower, leader.Addr())
	o.OnRetry = rec.add
	c := newClient(t, o)
	if _, err := c.GetContainer(testCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := rec.list(); len(got) != 1 || got[0].Hint != HintSelf || got[0].To.Addr != leader.Addr() {
		t.Fatalf("retries %+v, want one naming itself, then the other SCM", got)
	}
}
