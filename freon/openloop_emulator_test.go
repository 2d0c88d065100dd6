package freon_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// A DataNode that stops answering for a second, mid-run: the closed loop's workers wait in
// their two calls and send nothing meanwhile, so two slow calls out of 2000 leave its p99 alone
// (coordinated omission); the open loop keeps its schedule, so the thousand calls due during the
// pause count from their due times and its p99 is most of the pause.
func TestOpenLoopShowsAStall(t *testing.T) {
	const (
		calls   = 2000
		stallAt = 500 // the call that pauses the DataNode: half a second into the open loop
		pause   = time.Second
	)
	c, conf := minitest.Start(t, minicluster.Options{})
	sess, err := echo.Open(context.Background(), echo.Spec{Cluster: echo.Cluster{ConfDir: conf}, ContainerID: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	dn := c.DataNodes()[0] // the default target sends every call to the first member
	run := func(rate string) *freon.Report {
		var once sync.Once
		released := make(chan struct{})
		res, err := freon.Generator{
			Options: freon.Options{NumberOfTests: calls, Threads: 2, Rate: rate},
			Out:     io.Discard, Log: freon.NewLogWriter(io.Discard, nil),
			Task: func(ctx context.Context, id int) freon.Outcome {
				if id == stallAt {
					once.Do(func() {
						if err := dn.SetFaults(dnsim.Faults{Stall: true}); err != nil {
							t.Error(err)
						}
						time.AfterFunc(pause, func() { _ = dn.SetFaults(dnsim.Faults{}); close(released) })
					})
				}
				r := sess.Echo(ctx, uint64(id))
				return freon.Outcome{Latency: r.Latency, Err: r.Err, Label: r.Label, Interrupted: r.Interrupted}
			},
		}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		<-released
		if res.Successes != calls {
			t.Fatalf("rate %q: %d of %d calls succeeded", rate, res.Successes, calls)
		}
		return res
	}
	ms := func(ns float64) time.Duration { return time.Duration(ns) }

	closed := run("")
	if p99, max := ms(closed.Latency.P99), time.Duration(closed.Latency.Max); p99 >= 250*time.Millisecond || max < pause*9/10 {
		t.Errorf("closed loop: p99 %v (want well under the pause), max %v (want the pause)", p99, max)
	}
	open := run("1000/s")
	if p99 := ms(open.Latency.P99); p99 < 500*time.Millisecond {
		t.Errorf("open loop: p99 %v, want most of the %v pause", p99, pause)
	}
	if l := open.Loop; l.LateStarts < 500 || ms(l.StartDelay.P99) < 500*time.Millisecond {
		t.Errorf("open loop: %d late starts, p99 start delay %v; want the calls due during the pause", l.LateStarts, ms(l.StartDelay.P99))
	}
	t.Logf("closed: p99 %v max %v; open: p99 %v, %s", ms(closed.Latency.P99), time.Duration(closed.Latency.Max),
		ms(open.Latency.P99), open.Loop)
}
