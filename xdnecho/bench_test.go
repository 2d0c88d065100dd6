package xdnecho

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// The two benchmarks compare the whole JS path (a VU iteration calling client.echo(), samples
// included) with the datanode client called directly from Go, against the same mini cluster in
// the same process, at the same concurrency (c = VUs or goroutines):
//
//	go test -run '^$' -bench 'BenchmarkEcho(FromJS|Go)' -benchmem -benchtime 20000x ./xdnecho/
//
// calls/s is b.N over wall time; cpu-ns/op is the process CPU (client, engine and emulator)
// per call. The goal is FromJS reaching at least 0.85x the calls/s of Go.

var benchConcurrency = []int{1, 8, 32}

// BenchmarkEchoGo calls the echo session straight from Go: what freon's workers do.
func BenchmarkEchoGo(b *testing.B) {
	c, _ := minitest.Start(b, minicluster.Options{})
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
	c, _ := minitest.Start(b, minicluster.Options{})
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
			measure(b, vuWorkers(b, rn, conc))
		})
	}
}

// BenchmarkEchoAsyncFromJS keeps inflight echoAsync calls in flight per VU (chains of calls, as
// in examples/async-echo.js) at vus VUs; an op is one call. Compare vus=4,inflight=8 with
// BenchmarkEchoFromJS/c=32: the same 32 calls in flight.
//
//	go test -run '^$' -bench 'BenchmarkEcho(Async)?FromJS' -benchmem -benchtime 20000x ./xdnecho/
func BenchmarkEchoAsyncFromJS(b *testing.B) {
	const perChain = 16
	c, _ := minitest.Start(b, minicluster.Options{})
	for _, shape := range []struct{ vus, inflight int }{{1, 8}, {4, 8}} {
		env := clusterEnv(c)
		env["IN_FLIGHT"], env["CALLS"] = fmt.Sprint(shape.inflight), fmt.Sprint(perChain)
		rn := mustLoad(b, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
const IN_FLIGHT = Number(__ENV.IN_FLIGHT), CALLS = Number(__ENV.CALLS);
async function chain() {
  for (let i = 0; i < CALLS; i++) {
    const r = await client.echoAsync();
    if (!r.ok) throw new Error(r.result + ': ' + r.message);
  }
}
export default async function () {
  const chains = [];
  for (let i = 0; i < IN_FLIGHT; i++) chains.push(chain());
  await Promise.all(chains);
}`, env)
		rn.out.Discard.Store(true)
		b.Run(fmt.Sprintf("vus=%d,inflight=%d", shape.vus, shape.inflight), func(b *testing.B) {
			measureBatch(b, vuWorkers(b, rn, shape.vus), shape.inflight*perChain)
		})
	}
}

// vuWorkers returns n workers, each running iterations of its own VU of rn with a cancellable
// context, as the scheduler passes one.
func vuWorkers(b *testing.B, rn *run, n int) []func() error {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	workers := make([]func() error, n)
	for i := range workers {
		vu := rn.vu(b, uint64(i+1), nil)
		workers[i] = func() error {
			if interrupted, err := outcome(vu.RunIteration(ctx, execinfo.Iteration{})); interrupted || err != nil {
				return fmt.Errorf("interrupted=%v: %w", interrupted, err)
			}
			return nil
		}
	}
	return workers
}

// measure runs b.N operations spread over the workers (one goroutine each) and reports calls/s
// and CPU per call.
func measure(b *testing.B, workers []func() error) { measureBatch(b, workers, 1) }

// measureBatch is measure for workers that make per calls each time they are called: they are
// called until at least b.N calls are made.
func measureBatch(b *testing.B, workers []func() error, per int) {
	b.ReportAllocs()
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	cpu, start := cpuTime(), time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for next.Add(int64(per))-int64(per) < int64(b.N) {
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
	calls := float64((b.N + per - 1) / per * per) // what the workers made
	b.ReportMetric(calls/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(cpuTime()-cpu)/calls, "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
