package ratis_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestEcho: reads are answered by the leader without a log entry, writes go through the log and
// are applied on every replica; the DataNode of the result is the leader.
func TestEcho(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{Leader: 1}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{})
	for _, r := range []datanode.Request{read, write, {ContainerID: 1, PayloadSizeResp: 100, Payload: []byte{1, 2}}} {
		res, err := echo(t, c, r)
		if err != nil || !res.OK() || res.DataNode.UUID != p.dns[1].UUID() || res.Attempts != 1 || res.BytesReceived == 0 {
			t.Fatalf("%+v: %+v, %v", r, res, err)
		}
	}
	testwait.Eventually(t, testwait.Timeout, "both writes applied everywhere", func() bool {
		s := p.g.Stats()
		return s.Applied[0] == 2 && s.Applied[1] == 2 && s.Applied[2] == 2
	})
	if s := p.g.Stats(); s.LastIndex != 3 || s.NotLeader != 0 {
		t.Fatalf("stats %+v", s)
	}
	if m := c.Members(); len(m) != 3 || m[0].UUID != p.dns[1].UUID() {
		t.Fatalf("members %v", m)
	}
}

// TestNotLeaderRedirect: SCM names a follower; its NotLeader names the leader, and the call
// goes there at once with the same call id (a second attempt).
func TestNotLeaderRedirect(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	if err := p.g.TransferLeadership(2); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, testwait.Timeout, "new leader ready", func() bool { return p.g.Stats().Committed == 2 })
	c := newClient(t, p.proto, ratis.Options{Retry: quick})
	res, err := echo(t, c, write)
	if err != nil || res.DataNode.UUID != p.dns[2].UUID() || res.Attempts != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	testwait.Eventually(t, testwait.Timeout, "write applied on the leader", func() bool { return p.g.Stats().Applied[2] == 1 })
	if s := p.g.Stats(); s.NotLeader == 0 || s.LastIndex != 3 {
		t.Fatalf("stats %+v", s)
	}
}

// TestLeaderMoveMidRun: writes in flight when leadership moves get NotLeader from the old
// leader and are resent, oldest first with their call ids, to the new one; it answers them
// from its retry cache once ready: nothing lost, nothing applied twice.
func TestLeaderMoveMidRun(t *testing.T) {
	const n = 10
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{Retry: quick})
	pw, err := c.Prepare(write)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range writesAcrossLeaderMove(t, p, c, pw, n) {
		t.Error(err)
	}
	s := p.g.Stats()
	if s.Applied[1] != n || s.Applied[0] != n || s.LastIndex != 1+n+1 || s.NotLeader < n {
		t.Fatalf("stats %+v", s)
	}
}

// TestLeaderNotReady: a new leader answers LeaderNotReady until ready; the call keeps its
// leader and retries after the policy's sleep.
func TestLeaderNotReady(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{ReadyDelay: time.Hour}, dns(3)...)
	if err := p.g.TransferLeadership(1); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, p.proto, ratis.Options{Retry: quick})
	done := make(chan error, 1)
	go func() {
		_, err := echo(t, c, write)
		done <- err
	}()
	testwait.Eventually(t, testwait.Timeout, "LeaderNotReady sent", func() bool { return p.g.Stats().LeaderNotReady > 0 })
	p.g.SetReadyDelay(0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestFailures: final outcomes and how they are reported.
func TestFailures(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dnsim.Options{Containers: map[int64]int32{1: 0, 5: 0},
		ContainerStates: map[int64]hddspb.LifeCycleState{5: hddspb.LifeCycleState_CLOSED}})
	c := newClient(t, p.proto, ratis.Options{})
	var re *ratis.Error
	_, err := echo(t, c, datanode.Request{ContainerID: 5})
	if !errors.As(err, &re) || re.Class != ratispb.ClassContainerNotOpen || re.Label() != "ContainerNotOpenException" {
		t.Errorf("write to a CLOSED container: %v", err)
	}
	_, err = echo(t, c, datanode.Request{ContainerID: 7})
	if !errors.As(err, &re) || re.Class != ratispb.ClassStorageContainer || re.LogIndex == 0 || re.Message != "ContainerID 7 does not exist" {
		t.Errorf("write to a missing container: %v", err)
	}
	var ee *datanode.EchoError
	res, err := echo(t, c, datanode.Request{ContainerID: 7, ReadOnly: true})
	if !errors.As(err, &ee) || ee.Code != dnpb.Result_CONTAINER_NOT_FOUND || res.Code != dnpb.Result_CONTAINER_NOT_FOUND {
		t.Errorf("read of a missing container: %+v, %v", res, err)
	}

	other := proto1(t, p)
	res, err = echo(t, newClient(t, other, ratis.Options{}), read)
	var se *ratis.StreamError
	if !errors.As(err, &se) || se.Class != ratispb.ClassGroupMismatch || status.Code(err) != codes.Internal || res.GRPCCode != codes.Internal {
		t.Errorf("unknown group: %+v, %v", res, err)
	}

	three := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	if err := three.g.TransferLeadership(-1); err != nil {
		t.Fatal(err)
	}
	_, err = echo(t, newClient(t, three.proto, ratis.Options{Retry: &ratis.RetryPolicy{NoRetry: true}}), read)
	if !errors.As(err, &re) || re.Class != ratispb.ClassNotLeader {
		t.Errorf("no leader, no retries: %v", err)
	}
}

// proto1 is p's pipeline under another id, which no DataNode serves.
func proto1(t *testing.T, p *pipeline) *hddspb.Pipeline {
	t.Helper()
	id, err := hddspb.NewPipelineID(hddspb.UUIDText(hddspb.NewRandomUUID()))
	if err != nil {
		t.Fatal(err)
	}
	return &hddspb.Pipeline{Id: id, Members: p.proto.Members}
}

// TestTimeout: a write that never commits fails after RequestTimeout when the policy allows no
// retry, as a DEADLINE_EXCEEDED stream error.
func TestTimeout(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{RequestTimeout: 20 * time.Millisecond, Retry: &ratis.RetryPolicy{NoRetry: true}})
	res, err := echo(t, c, write)
	if status.Code(err) != codes.DeadlineExceeded || res.RTT < 20*time.Millisecond {
		t.Fatalf("%+v, %v", res, err)
	}
}

// TestMissingRatisPort: Java fails with a NullPointerException; the Go client says why.
func TestMissingRatisPort(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	d, err := dnsim.New(dnsim.Options{NoRatis: true})
	if err != nil {
		t.Fatal(err)
	}
	pl := &hddspb.Pipeline{Id: p.proto.Id, Members: append(p.proto.Members, d.Details())}
	_, err = ratis.New(pl, ratis.Options{})
	var mp *ratis.MissingPortError
	if !errors.As(err, &mp) || mp.DataNode != d.UUID() {
		t.Fatalf("New: %v", err)
	}
}

// TestOneMemberManyClients: a RATIS/ONE pipeline, 5 clients, 10 workers, reads and writes
// (freon's upstream test matrix for --ratis with and without --read-only).
func TestOneMemberManyClients(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	clients := make([]*ratis.Client, 5)
	for i := range clients {
		clients[i] = newClient(t, p.proto, ratis.Options{})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%len(clients)]
			for _, r := range []datanode.Request{read, write, read, write, write} {
				if _, err := echo(t, c, r); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := p.g.Stats(); s.Applied[0] != 30 {
		t.Fatalf("stats %+v", s)
	}
}

// TestTLS: the RATIS port with TLS, the client trusting the DataNode's CA.
func TestTLS(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dnsim.Options{TLS: true})
	c := newClient(t, p.proto, ratis.Options{TLS: &datanode.TLSOptions{CAPEM: p.dns[0].CACertPEM()}})
	if _, err := echo(t, c, write); err != nil {
		t.Fatal(err)
	}
	plain := newClient(t, p.proto, ratis.Options{Retry: &ratis.RetryPolicy{NoRetry: true}})
	if _, err := echo(t, plain, read); status.Code(err) != codes.Unavailable {
		t.Fatalf("plaintext to a TLS port: %v", err)
	}
}

// TestClose: calls in flight end with ErrClosed (label CANCELLED), later ones too.
func TestClose(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}}, dns(3)...)
	c, err := ratis.New(p.proto, ratis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		res, err := echo(t, c, write)
		if res.GRPCCode != codes.Canceled {
			err = errors.Join(err, errors.New("not CANCELLED"))
		}
		done <- err
	}()
	testwait.Eventually(t, testwait.Timeout, "the write logged", func() bool { return p.g.Stats().LastIndex == 2 })
	c.Close()
	if err := <-done; !errors.Is(err, ratis.ErrClosed) {
		t.Fatalf("call in flight: %v", err)
	}
	if _, err := echo(t, c, read); !errors.Is(err, ratis.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}

// TestReadOfAnUnreachablePipeline: Ratis retries a read forever without sleeping, a busy loop
// that never ends once every member is gone. dnecho's policy backs off and gives up on a read
// older than ReadTimeout with the last failure (UNAVAILABLE), so the session can act on it.
func TestReadOfAnUnreachablePipeline(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{RequestTimeout: time.Second, Retry: &ratis.RetryPolicy{
		ReadBackoffBase: 5 * time.Millisecond, ReadBackoffMax: 50 * time.Millisecond, ReadTimeout: 500 * time.Millisecond}})
	if _, err := echo(t, c, read); err != nil {
		t.Fatal(err)
	}
	for _, d := range p.dns {
		d.Stop()
	}
	res, err := echo(t, c, read)
	if status.Code(err) != codes.Unavailable || res.GRPCCode != codes.Unavailable {
		t.Fatalf("read of a stopped pipeline: %+v, %v; want UNAVAILABLE", res, err)
	}
	// 500 ms of sleeps from 5 ms doubling to 50 ms is about a dozen attempts; without sleeps it
	// was thousands.
	if res.RTT < 500*time.Millisecond || res.Attempts > 40 {
		t.Errorf("gave up after %s and %d attempts, want after 500ms and a few dozen at most", res.RTT, res.Attempts)
	}
}
