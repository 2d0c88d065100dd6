package main

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/bench/floor"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var resultLine = regexp.MustCompile(`^calls=200 failed=0 seconds=[0-9.]+ calls_per_s=[0-9.]+ p50_ms=[0-9.]+ p99_ms=[0-9.]+ allocs_per_call=[0-9.]+\n$`)

func startDN(t *testing.T) *dnsim.DataNode {
	t.Helper()
	d, err := dnsim.New(dnsim.Options{Containers: map[int64]int32{1: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

func TestRun(t *testing.T) {
	for _, tt := range []struct {
		name       string
		reuse      bool
		minStreams uint64
		maxStreams uint64
	}{{"new stream per call", false, 200, 200}, {"reused streams: one per goroutine that made a call", true, 1, 4}} {
		t.Run(tt.name, func(t *testing.T) {
			d := startDN(t)
			var out strings.Builder
			c := config{addr: d.Addr(), uuid: d.UUID(), container: 1, calls: 200, threads: 4, reuse: tt.reuse,
				deadline: floor.DefaultDeadline, latency: true}
			if err := run(c, &out); err != nil {
				t.Fatal(err)
			}
			if !resultLine.MatchString(out.String()) {
				t.Errorf("output %q", out.String())
			}
			st := d.Stats()
			if st.Successes != 200 || st.Streams < tt.minStreams || st.Streams > tt.maxStreams {
				t.Errorf("DataNode saw %d successes on %d streams, want 200 on %d to %d", st.Successes, st.Streams, tt.minStreams, tt.maxStreams)
			}
		})
	}
}

func TestRunReportsFailures(t *testing.T) {
	d := startDN(t)
	var out strings.Builder
	c := config{addr: d.Addr(), uuid: d.UUID(), container: 9, calls: 5, threads: 2, deadline: time.Second}
	err := run(c, &out)
	var re *floor.ResultError
	if !errors.As(err, &re) || re.Result != dnpb.Result_CONTAINER_NOT_FOUND {
		t.Fatalf("run = %v, want a CONTAINER_NOT_FOUND failure", err)
	}
	if !strings.Contains(out.String(), "calls=5 failed=5 ") {
		t.Errorf("output %q", out.String())
	}
}

// Several DataNodes share the calls round-robin, as dnecho's --target all does.
func TestRunRoundRobin(t *testing.T) {
	dns := []*dnsim.DataNode{startDN(t), startDN(t), startDN(t)}
	var addrs, uuids []string
	for _, d := range dns {
		addrs, uuids = append(addrs, d.Addr()), append(uuids, d.UUID())
	}
	var out strings.Builder
	c := config{addr: strings.Join(addrs, ","), uuid: strings.Join(uuids, ","), container: 1, calls: 300, threads: 4,
		deadline: floor.DefaultDeadline, latency: true}
	if err := run(c, &out); err != nil {
		t.Fatal(err)
	}
	for i, d := range dns {
		if st := d.Stats(); st.Successes != 100 {
			t.Errorf("DataNode %d saw %d successes, want 100", i+1, st.Successes)
		}
	}
}

func TestRunBadDataNodeLists(t *testing.T) {
	d := startDN(t)
	for _, c := range []config{
		{addr: d.Addr() + "," + d.Addr(), uuid: d.UUID(), calls: 1, threads: 1},
		{addr: d.Addr() + "," + d.Addr(), uuid: d.UUID() + "," + d.UUID(), calls: 1, threads: 1, reuse: true},
	} {
		if err := run(c, io.Discard); err == nil {
			t.Errorf("run(%q, %q, reuse %v) = nil, want an error", c.addr, c.uuid, c.reuse)
		}
	}
}
