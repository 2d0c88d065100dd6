package aggregate_test

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/aggregate/stream"
	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/internal/exitcode"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const thirds = "0,1/3,2/3,1"

// startAggregator runs an aggregator on a loopback port; wait returns its result.
func startAggregator(t *testing.T) (addr string, wait func() *aggregate.Report) {
	t.Helper()
	return startAggregatorWith(t, nil)
}

// startAggregatorWith is startAggregator with options changed by tweak (nil: none).
func startAggregatorWith(t *testing.T, tweak func(*aggregate.Options)) (addr string, wait func() *aggregate.Report) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	done := make(chan *aggregate.Report, 1)
	go func() {
		o := aggregate.Options{Listener: ln, Interval: 100 * time.Millisecond}
		if tweak != nil {
			tweak(&o)
		}
		r, _ := aggregate.New(o).Run(ctx)
		done <- r
	}()
	var once sync.Once
	var res *aggregate.Report
	wait = func() *aggregate.Report {
		once.Do(func() { res = <-done; cancel() })
		return res
	}
	t.Cleanup(func() { cancel(); wait() })
	return ln.Addr().String(), wait
}

// instanceRun is one instance's runner.Run.
type instanceRun struct {
	res runner.Report
	err error
}

// runInstances runs the script once per segment of seq, each streaming to addr; withAPI gives
// the first instance a REST API, so that the aggregator stops it through HTTP.
func runInstances(t *testing.T, src, addr, seq string, withAPI bool) []instanceRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	points := strings.Split(seq, ",")
	out := make([]instanceRun, len(points)-1)
	var wg sync.WaitGroup
	for i := range out {
		cfg := instanceConfig(t, path, addr, seq, i)
		if withAPI && i == 0 {
			ln, err := restapi.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Control = runner.NewControl()
			srv := restapi.Serve(ln, cfg.Control, nil)
			t.Cleanup(func() { srv.Close() })
			cfg.APIAddress = "0.0.0.0:" + strings.Split(ln.Addr().String(), ":")[1]
		}
		wg.Go(func() {
			res, err := runner.Run(context.Background(), cfg)
			out[i] = instanceRun{res, err}
		})
	}
	wg.Wait()
	return out
}

// instanceConfig is the run of segment i of seq, streaming to addr.
func instanceConfig(t *testing.T, path, addr, seq string, i int) runner.Config {
	points := strings.Split(seq, ",")
	cli := options.Options{
		ExecutionSegment:         null.From(points[i] + ":" + points[i+1]),
		ExecutionSegmentSequence: null.From(seq),
		Tags:                     map[string]string{"instance_id": string(rune('1' + i))},
	}
	return runner.Config{Script: path, Layers: options.Layers{CLI: cli}, Logger: testLogger(t),
		Aggregation: stream.New(stream.Options{Addr: addr, Interval: 50 * time.Millisecond})}
}

// testLogger logs warnings and errors to the test's log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// trend reads a percentile of a trend from a runner's or the aggregator's summary metrics.
func p95(t *testing.T, res *aggregate.Report, name string) float64 {
	t.Helper()
	for _, s := range res.Snapshot.Series {
		if s.Name == name {
			return s.Sink.(*metrics.TrendSink).Percentile(95)
		}
	}
	t.Fatalf("no %s in the aggregated snapshot", name)
	return 0
}

// spread is a script whose trend values depend only on the global iteration number, so that
// split runs and a single run see the same values.
const spread = `
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
const t = new Trend('spread', true);
export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 3000 } },
  thresholds: { iterations: ['count<2000'], spread: ['p(95)<1e9'] },
};
export default function () { const i = exec.scenario.iterationInTest; t.add((i * 7919) % 1000 + i / 1000); }
`

// TestWholeTestVerdict: each instance's share passes the threshold, the whole test does not, so
// every instance fails with 99; the merged p95 equals a single run's.
func TestWholeTestVerdict(t *testing.T) {
	addr, wait := startAggregator(t)
	runs := runInstances(t, spread, addr, thirds, false)
	res := wait()
	for i, r := range runs {
		if code := runner.ExitCode(r.err); code != exitcode.ThresholdsFailed {
			t.Errorf("instance %d: exit %d (%v), want 99", i, code, r.err)
		}
		if r.res.Stats.IterationsCompleted != 1000 {
			t.Errorf("instance %d ran %d iterations, want 1000", i, r.res.Stats.IterationsCompleted)
		}
	}
	if strings.Join(res.Verdict.Failed, ",") != "iterations" || len(res.Verdict.Lost) != 0 || len(res.Instances) != 3 {
		t.Fatalf("verdict %+v, instances %+v", res.Verdict, res.Instances)
	}
	// The same test in one process, through its own aggregator (a whole test of one instance).
	addr1, wait1 := startAggregator(t)
	single := runInstances(t, spread, addr1, "0,1", false)
	if runner.ExitCode(single[0].err) != exitcode.ThresholdsFailed {
		t.Errorf("single run: %v", single[0].err)
	}
	if a, b := p95(t, res, "spread"), p95(t, wait1(), "spread"); a != b {
		t.Errorf("p(95) merged from 3 instances %v, single run %v", a, b)
	}
}

// TestAbortOnFail: an abortOnFail threshold crossed by the whole test stops every instance,
// the one with a REST API through it, the others through their stream; all exit 99.
func TestAbortOnFail(t *testing.T) {
	addr, wait := startAggregator(t)
	runs := runInstances(t, `
import { sleep } from 'k6';
export const options = {
  scenarios: { s: { executor: 'constant-vus', vus: 3, duration: '10m' } },
  thresholds: { iterations: [{ threshold: 'count<60', abortOnFail: true }] },
};
export default function () { sleep(0.01); }
`, addr, thirds, true)
	res := wait()
	for i, r := range runs {
		if code := runner.ExitCode(r.err); code != exitcode.ThresholdsFailed || !strings.Contains(r.err.Error(), "abortOnFail") {
			t.Errorf("instance %d: exit %d (%v), want 99 for abortOnFail", i, code, r.err)
		}
	}
	if !res.Verdict.Aborted || strings.Join(res.Verdict.Failed, ",") != "iterations" {
		t.Errorf("verdict %+v", res.Verdict)
	}
}

// TestLostInstance: an instance that disappears before its end is reported lost; the others
// learn it with their verdict, and its samples up to then count.
func TestLostInstance(t *testing.T) {
	addr, wait := startAggregator(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(conn)
	hello := wire.Hello{Instance: "ghost", Segment: "0:1/2", Sequence: "0,1/2,1",
		Metrics: []wire.MetricDef{{Name: "iterations", Type: "counter", Contains: "default"}}}
	state := wire.AppendState(nil, &wire.State{Elapsed: time.Second,
		NewSeries: []wire.SeriesDef{{ID: 1, Metric: "iterations", Type: metrics.Counter}},
		Deltas:    []wire.SeriesDelta{{ID: 1, Type: metrics.Counter, Delta: metrics.Delta{N: 7, Sum: 7, First: time.Now(), Last: time.Now()}}}})
	if err := wire.WriteJSON(w, wire.FrameHello, hello); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteFrame(w, wire.FrameState, state); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	conn.Close() // killed

	path := filepath.Join(t.TempDir(), "t.js")
	os.WriteFile(path, []byte(`export const options = { vus: 2, iterations: 4 }; export default function () {}`), 0o644)
	cli := options.Options{ExecutionSegment: null.From("1/2:1"), ExecutionSegmentSequence: null.From("0,1/2,1")}
	_, runErr := runner.Run(context.Background(), runner.Config{Script: path, Layers: options.Layers{CLI: cli},
		Aggregation: stream.New(stream.Options{Addr: addr, Interval: 50 * time.Millisecond})})
	res := wait()
	if runErr != nil {
		t.Errorf("surviving instance: %v", runErr)
	}
	if strings.Join(res.Verdict.Lost, ",") != "ghost" {
		t.Fatalf("lost = %v, want the ghost", res.Verdict.Lost)
	}
	var iters float64
	for _, s := range res.Snapshot.Series {
		if s.Name == "iterations" {
			iters = s.Sink.(*metrics.CounterSink).Sum
		}
	}
	if iters != 7+2 {
		t.Errorf("iterations %v, want the ghost's 7 and the survivor's 2", iters)
	}
}

// TestWholeTestVUs: the test's vus and vus_max are the instances' sums (3 VUs over three
// instances is 3, not the 1 of whichever instance reported last).
func TestWholeTestVUs(t *testing.T) {
	addr, wait := startAggregator(t)
	runInstances(t, `
import { sleep } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 3, duration: '1500ms' } } };
export default function () { sleep(0.05); }
`, addr, thirds, false)
	res := wait()
	for _, name := range []string{"vus", "vus_max"} {
		var g *metrics.GaugeSink
		for _, s := range res.Snapshot.Series {
			if s.Name == name {
				g, _ = s.Sink.(*metrics.GaugeSink)
			}
		}
		if g == nil || g.Value != 3 || g.Max != 3 || g.Min != 3 {
			t.Errorf("%s of the whole test: %+v, want value, min and max 3", name, g)
		}
	}
}
