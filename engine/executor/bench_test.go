package executor

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// noopVU does nothing per iteration, so benchmarks measure the scheduler alone.
type noopVU struct{}

func (noopVU) Activate(*execinfo.Scenario) Activation { return noopVU{} }
func (noopVU) RunIteration(context.Context, execinfo.Iteration) execinfo.Exit {
	return execinfo.Exit{}
}
func (noopVU) Deactivate() {}

func benchRun(b *testing.B, js string) *Scheduler {
	b.Helper()
	s, err := New(Options{
		Scenarios: []scenario.Config{scenariotest.Decode(b, "s", js)},
		VUs:       VUFactoryFunc(func(context.Context, execinfo.VUID) (VU, error) { return noopVU{}, nil }),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Init(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := s.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	return s
}

// BenchmarkSharedIterations is the scheduler's cost per iteration (claim, book, counters).
func BenchmarkSharedIterations(b *testing.B) {
	for _, vus := range []int{1, 4} {
		b.Run(fmt.Sprintf("vus=%d", vus), func(b *testing.B) {
			benchRun(b, fmt.Sprintf(`{"executor": "shared-iterations", "vus": %d, "iterations": %d, "maxDuration": "1h"}`, vus, max(b.N, vus)))
		})
	}
}

func BenchmarkPerVUIterations(b *testing.B) {
	benchRun(b, fmt.Sprintf(`{"executor": "per-vu-iterations", "vus": 1, "iterations": %d, "maxDuration": "1h"}`, b.N))
}

// BenchmarkArrivalRateDispatch makes b.N iterations due within about 1 ms on 4 idle no-op VUs,
// so the dispatcher runs flat out: ns/op is its cost per iteration (hand-over or drop), and
// started/op shows the share that found an idle VU.
func BenchmarkArrivalRateDispatch(b *testing.B) {
	var dropped atomic.Int64
	s, err := New(Options{
		Scenarios: []scenario.Config{scenariotest.Decode(b, "s", fmt.Sprintf(
			`{"executor": "constant-arrival-rate", "rate": %d, "duration": "1h", "preAllocatedVUs": 4, "gracefulStop": "0s"}`, b.N*1000))},
		VUs: VUFactoryFunc(func(context.Context, execinfo.VUID) (VU, error) { return noopVU{}, nil }),
		Samples: metrics.PusherFunc(func(ss []metrics.Sample) {
			for _, x := range ss {
				if x.Metric.Name == "dropped_iterations" {
					dropped.Add(int64(x.Value))
				}
			}
		}),
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Init(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	done := make(chan error)
	go func() { done <- s.Run(context.Background()) }()
	testwait.Eventually(b, time.Minute, fmt.Sprintf("%d iterations handled", b.N), func() bool {
		return s.InstanceStats().IterationsCompleted+dropped.Load() >= int64(b.N)
	})
	b.StopTimer()
	s.Stop(true)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(s.InstanceStats().IterationsCompleted)/float64(b.N), "started/op")
}
