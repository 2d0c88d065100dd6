package echo

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func open(t *testing.T, s Spec) *Session {
	t.Helper()
	sess, err := Open(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	return sess
}

func TestOpenFromConfAndSCM(t *testing.T) {
	c, dir := minitest.Start(t, minicluster.Options{})
	for name, s := range map[string]Spec{
		"conf":          {Cluster: Cluster{ConfDir: dir}, ContainerID: 2},
		"scm":           {Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 2},
		"single lookup": {Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 2, Lookup: LookupSingle},
		"env":           {ContainerID: 2},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OZONE_CONF_DIR", map[bool]string{true: dir}[name == "env"])
			sess := open(t, s)
			if got := sess.Placement().PipelineID(); got != c.PipelineID() {
				t.Errorf("pipeline %s, want %s", got, c.PipelineID())
			}
			if n := len(sess.Members()); n != 3 || sess.Placement().Token != "" {
				t.Errorf("%d members, token %q", n, sess.Placement().Token)
			}
			r := sess.Echo(context.Background(), 0)
			if !r.OK() || r.Label != LabelSuccess || r.Latency <= 0 || r.DataNode.UUID != c.DataNodes()[0].UUID() {
				t.Errorf("echo: %+v", r)
			}
		})
	}
}

func TestTokenModes(t *testing.T) {
	_, dir := minitest.Start(t, minicluster.Options{Tokens: true})
	sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1})
	tok, err := token.Decode(sess.Placement().Token)
	if err != nil || tok.Kind != "HDDS_CONTAINER_TOKEN" || tok.Service != "#1" {
		t.Fatalf("auto token %q: %+v %v", sess.Placement().Token, tok, err)
	}
	if r := sess.Echo(context.Background(), 0); !r.OK() {
		t.Fatalf("echo with the token: %+v", r)
	}
	none := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Token: TokenNone})
	if r := none.Echo(context.Background(), 0); r.OK() || none.Placement().Token != "" {
		t.Errorf("a token-less echo to a DataNode that requires one: %+v", r)
	}
	if _, err := Open(context.Background(), Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Token: "!"}, nil); !isField(err, FieldToken) {
		t.Errorf("an undecodable literal token: %v", err)
	}
}

func isField(err error, f Field) bool {
	var fe *FieldError
	return errors.As(err, &fe) && fe.Field == f
}

func TestOpenErrors(t *testing.T) {
	_, dir := minitest.Start(t, minicluster.Options{})
	t.Setenv("OZONE_CONF_DIR", "")
	if _, err := Open(context.Background(), Spec{ContainerID: 1}, nil); !errors.Is(err, ErrNoCluster) {
		t.Errorf("no cluster: %v", err)
	}
	if _, err := Open(context.Background(), Spec{Cluster: Cluster{ConfDir: dir}}, nil); !isField(err, FieldContainerID) {
		t.Errorf("no container: %v", err)
	}
	if _, err := Open(context.Background(), Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 42}, nil); !errors.Is(err, scm.ErrContainerNotFound) {
		t.Errorf("unknown container: %v", err)
	}
	if _, err := Open(context.Background(), Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Target: "nowhere"}, nil); !isField(err, FieldTarget) ||
		!strings.Contains(err.Error(), "matches no member") {
		t.Errorf("unknown target: %v", err)
	}
	begin := time.Now()
	var events []Event
	var mu sync.Mutex
	_, err := Open(context.Background(), Spec{Cluster: Cluster{SCM: []string{"127.0.0.1:1"}}, ContainerID: 1, LookupTimeout: time.Second},
		func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() })
	if err == nil || time.Since(begin) > 10*time.Second || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable SCM: %v after %s", err, time.Since(begin))
	}
	mu.Lock()
	defer mu.Unlock()
	// The refused connection is said at once, then that the lookup still waits.
	if len(events) != 2 || events[0].Kind != EventSCMRetry || !strings.Contains(events[0].Message, "SCM 127.0.0.1:1 failed") ||
		events[1].Kind != EventSlowLookup || events[1].Field != FieldLookupTimeout {
		t.Errorf("events %+v, want the refused connection, then one slow-lookup notice", events)
	}
}

// Ctrl-C during a lookup of a silent SCM (it accepts TCP, never answers) ends Open at once with
// ErrInterrupted, not after the lookup timeout.
func TestOpenInterrupted(t *testing.T) {
	hung := testkit.NewSilent(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Open(ctx, Spec{Cluster: Cluster{SCM: []string{hung.Addr()}}, ContainerID: 1}, nil)
		done <- err
	}()
	if err := testwait.Until(10*time.Second, "the lookup reaching SCM", func() bool { return hung.Connections() > 0 }); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) {
			t.Errorf("Open after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open did not return after its context was cancelled")
	}
}

// Without a CA file the CA certificates come from the Ozone Manager, as freon takes them; when the
// OM cannot be asked, the error names the CA option.
func TestTLSCAFromFileOrOM(t *testing.T) {
	_, dir := minitest.Start(t, minicluster.Options{TLS: true})
	fromOM := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1})
	if r := fromOM.Echo(context.Background(), 0); !r.OK() || len(fromOM.Placement().CAPEM) == 0 {
		t.Fatalf("echo over TLS with the OM's CA: %+v", r)
	}
	noOM := Spec{Cluster: Cluster{ConfDir: dir, Overrides: []string{"ozone.om.address="}}, ContainerID: 1}
	if _, err := Open(context.Background(), noOM, nil); !isField(err, FieldTLSCA) {
		t.Fatalf("TLS without a CA and without an OM: %v", err)
	}
	sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, TLSCA: []string{filepath.Join(dir, minicluster.CAFile)}})
	if r := sess.Echo(context.Background(), 0); !r.OK() {
		t.Fatalf("echo over TLS: %+v", r)
	}
	if d := sess.gen.Load().pool.opts.Timeout; d != 30*time.Second {
		t.Errorf("deadline %s, want the 30s default of ozone.client.read.timeout", d)
	}
}

// Clients are made on first use, and worker i uses client i mod Clients.
func TestClientsAreLazy(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	sess := open(t, Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1, Clients: MaxClients})
	p := sess.gen.Load().pool
	if p.made() != 1 {
		t.Fatalf("%d clients made at Open, want 1", p.made())
	}
	for _, w := range []uint64{0, 1, 1 + MaxClients, 2 * MaxClients} {
		if r := sess.Echo(context.Background(), w); !r.OK() {
			t.Fatalf("worker %d: %+v", w, r)
		}
	}
	if p.made() != 2 {
		t.Errorf("%d clients made after workers 0, 1 and their repeats, want 2", p.made())
	}
	a, _ := p.client(0)
	b, _ := p.client(1)
	if a == b {
		t.Error("workers 0 and 1 share a client")
	}
}

func TestPrepareSharesCalls(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	sess := open(t, Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1})
	a, err := sess.Prepare(Request{PayloadResp: 1024, ReadOnly: false})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sess.Prepare(Request{PayloadResp: 1024, ReadOnly: true})
	if a != b || !a.req.ReadOnly {
		t.Error("requests equal on the wire (read-only is forced over gRPC) must share a Call")
	}
	r := a.Echo(context.Background(), 0)
	if !r.OK() || r.BytesReceived < 1024 {
		t.Errorf("echo: %+v", r)
	}
	if _, err := sess.Prepare(Request{PayloadReq: MaxRequestBytes}); err == nil {
		t.Error("a request above the message limit was prepared")
	}
	if _, err := sess.Prepare(Request{SleepMs: -1}); !isField(err, FieldSleepMs) {
		t.Errorf("negative sleep: %v", err)
	}
}

// The measurement covers the DataNode's time: with 20 ms injected, every latency is at least that.
func TestLatencyCoversTheResponse(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{Latency: 20 * time.Millisecond}})
	sess := open(t, Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1})
	for range 3 {
		if r := sess.Echo(context.Background(), 0); !r.OK() || r.Latency < 20*time.Millisecond {
			t.Fatalf("latency %s below the injected 20ms: %+v", r.Latency, r)
		}
	}
}

func TestCloseEndsCalls(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	sess, err := Open(context.Background(), Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	sess.Close()
	if r := sess.Echo(context.Background(), 0); r.OK() || r.Label != "CANCELLED" {
		t.Errorf("echo after Close: %+v", r)
	}
}

// eventLog records a session's events.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) observe(e Event) { l.mu.Lock(); l.events = append(l.events, e); l.mu.Unlock() }

func (l *eventLog) kinds() []EventKind {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []EventKind
	for _, e := range l.events {
		out = append(out, e.Kind)
	}
	return out
}

// echoThroughMove opens a session on c with spec (its cluster set to c's SCMs), makes one call,
// moves c's DataNodes to new ports and calls until a call succeeds again. Every failure on the way
// must be UNAVAILABLE, and the calls must succeed again within 20 s (the context also bounds a call
// that would never give up). It returns the session, its events and the failures.
func echoThroughMove(t *testing.T, c *minicluster.Cluster, spec Spec) (*Session, *eventLog, int) {
	t.Helper()
	log := &eventLog{}
	spec.Cluster = Cluster{SCM: c.SCMAddrs()}
	sess, err := Open(context.Background(), spec, log.observe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if r := sess.Echo(context.Background(), 0); !r.OK() {
		t.Fatalf("before the move: %+v", r)
	}
	if err := c.MoveDataNodes(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	failures := 0
	testwait.Eventually(t, 20*time.Second, "a call after the move", func() bool {
		r := sess.Echo(ctx, 0)
		if r.OK() {
			return true
		}
		if r.Interrupted || ctx.Err() != nil {
			t.Fatalf("still failing after 20s (%d failures); events %v", failures, log.kinds())
		}
		if r.Label != "UNAVAILABLE" {
			t.Fatalf("failure %+v, want UNAVAILABLE", r)
		}
		failures++
		return false
	})
	return sess, log, failures
}

// DataNodes restarted on new ports: calls fail with UNAVAILABLE until the session, after
// ReresolveAfter of nothing else, asks SCM again and moves to the new addresses.
func TestReresolveAfterDataNodesMove(t *testing.T) {
	for _, stream := range []Stream{StreamNew, StreamReuse} {
		t.Run(string(stream), func(t *testing.T) {
			c, _ := minitest.Start(t, minicluster.Options{})
			sess, log, failures := echoThroughMove(t, c, Spec{ContainerID: 1, Stream: stream, ReresolveAfter: 100 * time.Millisecond})
			if failures == 0 || sess.Reresolutions() != 1 {
				t.Errorf("%d failures, %d re-resolutions; want some and 1", failures, sess.Reresolutions())
			}
			if k := log.kinds(); len(k) < 2 || k[len(k)-2] != EventReresolving || k[len(k)-1] != EventReresolved {
				t.Errorf("events %v, want ... reresolving, reresolved", k)
			}
			if r := sess.Echo(context.Background(), 1); !r.OK() || r.DataNode.Addr != c.DataNodes()[0].Addr() {
				t.Errorf("after the move: %+v, want %s", r, c.DataNodes()[0].Addr())
			}
		})
	}
}

func TestNoReresolveKeepsThePipeline(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	var log eventLog
	sess, err := Open(context.Background(), Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1,
		NoReresolve: true, ReresolveAfter: 50 * time.Millisecond}, log.observe)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := c.MoveDataNodes(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); {
		if r := sess.Echo(context.Background(), 0); r.OK() {
			t.Fatal("a call reached the moved DataNodes without a new lookup")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if sess.Reresolutions() != 0 || len(log.kinds()) != 0 {
		t.Errorf("re-resolutions %d, events %v; want none", sess.Reresolutions(), log.kinds())
	}
}

// A CLOSED container looked up with GetContainerWithPipeline is served on a read pipeline SCM
// builds for each lookup, with a new id each time: after a move every Result names the pipeline
// it went to, not the first one.
func TestResultsNameThePipelineAfterAMove(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	if err := c.SCM().AddContainer(scmsim.Container{ID: 1, State: hddspb.LifeCycleState_CLOSED, PipelineID: c.PipelineID()}); err != nil {
		t.Fatal(err)
	}
	sess, err := Open(context.Background(), Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1,
		Lookup: LookupSingle, ReresolveAfter: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	first := sess.Echo(context.Background(), 0)
	if !first.OK() || first.Pipeline == "" || first.Pipeline != sess.Placement().PipelineID() || first.Pipeline == c.PipelineID() {
		t.Fatalf("before the move: %+v, session pipeline %s", first, sess.Placement().PipelineID())
	}
	if err := c.MoveDataNodes(); err != nil {
		t.Fatal(err)
	}
	var r Result
	testwait.Eventually(t, testwait.Timeout, "a call after the move", func() bool {
		if r = sess.Echo(context.Background(), 0); r.OK() {
			return true
		}
		if r.Pipeline != first.Pipeline && sess.Reresolutions() == 0 {
			t.Fatalf("a failed call before any move names pipeline %s, want %s", r.Pipeline, first.Pipeline)
		}
		return false
	})
	if r.Pipeline == first.Pipeline || r.Pipeline != sess.Placement().PipelineID() {
		t.Errorf("after the move the call names pipeline %s; first %s, session now %s", r.Pipeline, first.Pipeline, sess.Placement().PipelineID())
	}
	sess.Close()
	if closed := sess.Echo(context.Background(), 0); closed.OK() || closed.Pipeline != r.Pipeline {
		t.Errorf("a call on the closed session: %+v", closed)
	}
}

// A CA that did not sign the DataNodes' certificates fails every transport at once with the
// reason; over Ratis, retrying the handshake (as Java does for minutes) would only hide it.
func TestUntrustedCAFailsAtOnce(t *testing.T) {
	_, dir := minitest.Start(t, minicluster.Options{TLS: true})
	_, other := minitest.Start(t, minicluster.Options{TLS: true})
	for _, tr := range []Transport{TransportGRPC, TransportRatis} {
		sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: tr, TLSCA: []string{filepath.Join(other, minicluster.CAFile)}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		start := time.Now()
		r := sess.Echo(ctx, 0)
		cancel()
		if r.OK() || r.Err == nil || !strings.Contains(r.Err.Error(), "certificate signed by unknown authority") || time.Since(start) > 10*time.Second {
			t.Errorf("%s with an untrusted CA: ok %v after %s, error %v", tr, r.OK(), time.Since(start).Round(time.Millisecond), r.Err)
		}
	}
}
