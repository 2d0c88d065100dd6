package xdnecho

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/exec"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/echo"
)

// The two benchmarks compare the whole JS path (a VU iteration calling client.echo(), samples
// included) with the datanode client called directly from Go, against the same mini cluster in
// the same process, at the same concurrency (c = VUs or goroutines):
//
//	go test -run '^$' -bench 'BenchmarkEcho(FromJS|Go)' -benchmem -benchtime 20000x ./xdnecho/
//
// calls/s is b.N over wall time; cpu-ns/op is the process CPU (client, engine and emulator)
// per call. The goal is FromJS reaching at least 0.85x the calls/s of Go.

var benchConcurrency = []int{1, 8}

// BenchmarkEchoGo calls the echo session straight from Go: what freon's workers do.
func BenchmarkEchoGo(b *testing.B) {
	c := startCluster(b, minicluster.Options{})
	sess, err := echo.Open(context.Background(), echo.Spec{Cluster: echo.Cluster{SCM: c.SCMAddrs()}, ContainerID: 1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	for _, conc := range benchConcurrency {
		b.Run(fmt.Sprintf("c=%d", conc), func(b *testing.B) {
			workers := make([]func() error, conc)
			for i := range workers {
				workers[i] = func() error {
					return sess.Echo(context.Background(), uint64(i)).Err
				}
			}
			measure(b, workers)
		})
	}
}

func BenchmarkEchoFromJS(b *testing.B) {
	c := startCluster(b, minicluster.Options{})
	rn := mustLoad(b, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () {
  const r = client.echo();
  if (!r.ok) throw new Error(r.result + ': ' + r.message);
}`, clusterEnv(c))
	rn.out.Discard.Store(true) // a runner aggregates samples; keeping them all would skew B/op
	for _, conc := range benchConcurrency {
		b.Run(fmt.Sprintf("c=%d", conc), func(b *testing.B) {
			// A cancellable context, as the scheduler passes.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			workers := make([]func() error, conc)
			for i := range workers {
				vu := rn.vu(b, uint64(i+1), nil)
				workers[i] = func() error {
					if interrupted, err := vu.RunIteration(ctx, exec.Iteration{}); interrupted || err != nil {
						return fmt.Errorf("interrupted=%v: %w", interrupted, err)
					}
					return nil
				}
			}
			measure(b, workers)
		})
	}
}

// measure runs b.N operations spread over the workers (one goroutine each) and reports calls/s
// and CPU per call.
func measure(b *testing.B, workers []func() error) {
	b.ReportAllocs()
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	cpu, start := cpuTime(), time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := w(); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
