package echo

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestRatisModes: over Ratis a read-only Echo is a Raft read, any other a write applied on every
// replica; the DataNode of a result is the leader SCM listed.
func TestRatisModes(t *testing.T) {
	c, dir := minitest.Start(t, minicluster.Options{Leader: 1})
	leader := c.DataNodes()[1].UUID()
	sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: TransportRatis, Clients: 2})
	if m := sess.Members(); len(m) != 3 || m[0].UUID != leader {
		t.Fatalf("members %v", m)
	}
	for _, tt := range []struct {
		readOnly bool
		mode     Mode
	}{{true, ModeRatisRead}, {false, ModeRatisWrite}} {
		call, err := sess.Prepare(Request{ReadOnly: tt.readOnly, PayloadResp: 10})
		if err != nil {
			t.Fatal(err)
		}
		for w := range uint64(2) {
			r := call.Echo(context.Background(), w)
			if !r.OK() || r.DataNode.UUID != leader || call.Mode() != tt.mode || r.Attempts != 1 {
				t.Fatalf("%s: %+v", tt.mode, r)
			}
		}
	}
	if s := c.Group().Stats(); s.LastIndex != 3 {
		t.Fatalf("two writes, log %+v", s)
	}
	grpcSess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1})
	if grpcSess.def.Mode() != ModeGRPC {
		t.Errorf("gRPC mode %s", grpcSess.def.Mode())
	}
}

// TestRatisWriteSafety: writes through Ratis need SCM to list the container OPEN on its
// pipeline; reads do not, and UnsafeWrite overrides the check.
func TestRatisWriteSafety(t *testing.T) {
	c, dir := minitest.Start(t, minicluster.Options{})
	if err := c.SCM().AddContainer(scmsim.Container{ID: 9, State: hddspb.LifeCycleState_CLOSED, PipelineID: c.PipelineID()}); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 9, Transport: TransportRatis}
	_, err := Open(context.Background(), spec, nil)
	var ue *UnsafeWriteError
	if !errors.As(err, &ue) || ue.Container != 9 || ue.Reason != "SCM lists it as CLOSED, not OPEN" {
		t.Fatalf("write session on a CLOSED container: %v", err)
	}
	spec.Request.ReadOnly = true
	sess := open(t, spec)
	if _, err := sess.Prepare(Request{}); !errors.As(err, &ue) {
		t.Fatalf("write call in a read session: %v", err)
	}
	spec.Request.ReadOnly, spec.UnsafeWrite = false, true
	open(t, spec)
}

// TestRatisLeaderMoves: calls keep succeeding while leadership moves mid-run, each counted once.
func TestRatisLeaderMoves(t *testing.T) {
	c, dir := minitest.Start(t, minicluster.Options{})
	sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: TransportRatis, Clients: 2,
		Request: Request{ReadOnly: true}})
	const workers, calls = 4, 50
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	for w := range uint64(workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if r := sess.Echo(context.Background(), w); !r.OK() {
					failed.Add(1)
					t.Errorf("echo: %+v", r)
				}
				done.Add(1)
			}
		}()
	}
	for _, to := range []int{1, 2, 0} {
		target := done.Load() + 20
		testwait.Eventually(t, testwait.Timeout, "calls before the transfer", func() bool { return done.Load() >= min(target, workers*calls) })
		if err := c.TransferLeadership(to); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if s := c.Group().Stats(); done.Load() != workers*calls || failed.Load() != 0 || s.Term != 4 {
		t.Fatalf("%d calls, %d failed, group %+v", done.Load(), failed.Load(), s)
	}
}

// TestRatisReplicationDelay: a write is answered once a majority holds it, so its latency is at
// least the delay of the follower that completes the majority; reads are answered by the leader
// alone, even while no follower holds anything.
func TestRatisReplicationDelay(t *testing.T) {
	const delay = 40 * time.Millisecond
	c, dir := minitest.Start(t, minicluster.Options{ReplicationDelay: delay})
	sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: TransportRatis})
	if r := sess.Echo(context.Background(), 0); !r.OK() || r.Latency < delay {
		t.Fatalf("write: %+v, want a latency of at least %s", r, delay)
	}
	for _, f := range []int{1, 2} {
		if err := c.Group().SetDelay(f, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	read, err := sess.Prepare(Request{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if r := read.Echo(ctx, 0); !r.OK() {
		t.Fatalf("read while followers hold nothing: %+v", r)
	}
}

// TestRatisHandlerQueueing: 32 clients, one Echo each with a sleep, against one DataNode handler
// queue up (HDDS-11224's finding with hdds.datanode.handler.count = 1) and run side by side with 10.
func TestRatisHandlerQueueing(t *testing.T) {
	const clients, sleep = 32, 10
	for _, handlers := range []int{1, 10} {
		c, dir := minitest.Start(t, minicluster.Options{HandlerCount: handlers})
		sess := open(t, Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1, Transport: TransportRatis, Clients: clients,
			Request: Request{ReadOnly: true, SleepMs: sleep}})
		start := time.Now()
		var wg sync.WaitGroup
		for w := range uint64(clients) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := sess.Echo(context.Background(), w); !r.OK() {
					t.Errorf("echo: %+v", r)
				}
			}()
		}
		wg.Wait()
		took, st := time.Since(start), c.DataNodes()[0].Stats()
		switch {
		case handlers == 1 && (st.HandlersPeak != 1 || st.QueuedPeak < 2 || took < clients*sleep*time.Millisecond):
			t.Errorf("1 handler: %s, %+v", took, st)
		case handlers == 10 && (st.HandlersPeak < 2 || st.HandlersPeak > 10):
			t.Errorf("10 handlers: %+v", st)
		}
	}
}

// Ratis reads to DataNodes that moved fail (after ReresolveAfter of retries) instead of retrying
// forever, so the session looks the container up again and follows them.
func TestRatisReadsFollowAMove(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	sess, log, failures := echoThroughMove(t, c, Spec{ContainerID: 1, Transport: TransportRatis,
		Request: Request{ReadOnly: true}, ReresolveAfter: 200 * time.Millisecond})
	if failures == 0 || sess.Reresolutions() != 1 {
		t.Errorf("%d failures, %d re-resolutions; want some and 1 (events %v)", failures, sess.Reresolutions(), log.kinds())
	}
}

// The configuration's hdds.ratis.* client keys reach the Raft client; the Spec's deadline and
// switches win over them.
func TestRatisOptionsFromConfiguration(t *testing.T) {
	rc := config.RatisClient{RequestTimeout: 30 * time.Second, MaxOutstanding: 8, WriteTimeout: 70 * time.Second,
		WatchTimeout: 30 * time.Second, Multilinear: []config.RetryStep{{Sleep: 5 * time.Second, Count: 6}},
		ExpBaseSleep: time.Second, ExpMaxSleep: 5 * time.Second, ExpMaxRetries: 2}
	tg := &Placement{Settings: config.ClientSettings{Ratis: rc}}
	spec := Spec{ReresolveAfter: 10 * time.Second}
	ro := ratisOptions(spec, tg, datanode.Options{})
	want := &ratis.RetryPolicy{Multilinear: []ratis.Step{{Sleep: 5 * time.Second, Count: 6}},
		ExpBase: time.Second, ExpMax: 5 * time.Second, ExpMaxRetries: 2, WriteTimeout: 70 * time.Second, WatchTimeout: 30 * time.Second,
		ReadBackoffBase: ratis.DefaultRetryPolicy().ReadBackoffBase, ReadBackoffMax: ratis.DefaultRetryPolicy().ReadBackoffMax,
		ReadTimeout: 10 * time.Second}
	if ro.RequestTimeout != 30*time.Second || ro.MaxOutstanding != 8 || !reflect.DeepEqual(ro.Retry, want) {
		t.Errorf("options %+v, retry %+v\nwant retry %+v", ro, ro.Retry, want)
	}
	if def := ratisOptions(spec, &Placement{}, datanode.Options{}); def.RequestTimeout != ratis.DefaultRequestTimeout ||
		def.Retry.WriteTimeout != ratis.DefaultRetryPolicy().WriteTimeout || def.MaxOutstanding != 0 {
		t.Errorf("without the keys: %+v %+v", def, def.Retry)
	}
	spec.Deadline, spec.NoRetry = 2*time.Second, true
	if ro := ratisOptions(spec, tg, datanode.Options{}); ro.RequestTimeout != 2*time.Second || !ro.Retry.NoRetry {
		t.Errorf("deadline and no-retry: %+v %+v", ro, ro.Retry)
	}
}

// A Ratis key that cannot be read fails a Ratis session with the key's name, not a gRPC one.
func TestBadRatisKeyFailsOnlyTheRatisPath(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	cl := Cluster{SCM: c.SCMAddrs(), Overrides: []string{config.KeyRatisWriteTimeout + "=soon"}}
	if _, err := Open(context.Background(), Spec{Cluster: cl, ContainerID: 1, Transport: TransportRatis}, nil); err == nil ||
		!strings.Contains(err.Error(), config.KeyRatisWriteTimeout) {
		t.Errorf("Ratis session with a bad %s: %v", config.KeyRatisWriteTimeout, err)
	}
	sess := open(t, Spec{Cluster: cl, ContainerID: 1})
	if r := sess.Echo(context.Background(), 0); !r.OK() {
		t.Errorf("gRPC session with the same configuration: %+v", r)
	}
}
