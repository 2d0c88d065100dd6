package aggregate_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// hookScript: server b answers in 9 ms, a in 1 ms, on every instance; each instance sets the
// verdict gauge to 5 itself, which the whole test must not take (Options.Computed).
const hookScript = `
import { Trend, Gauge } from 'k6/metrics';
import { sleep } from 'k6';
const lat = new Trend('extmod_latency', true);
const verdict = new Gauge('extmod_verdict');
export const options = {
  scenarios: { s: { executor: '%s', vus: 3, %s } },
  thresholds: { extmod_verdict: [{ threshold: 'value==0', abortOnFail: %t }] },
};
export default function () {
  lat.add(1, { server: 'a' });
  lat.add(9, { server: 'b' });
  verdict.add(5);
  sleep(0.005);
}`

// script is hookScript with its scenario's executor and size, and abortOnFail.
func script(executor, size string, abort bool) string {
	return fmt.Sprintf(hookScript, executor, size, abort)
}

// judge sets extmod_verdict to 1 when server b's median is more than twice a's, and counts the
// servers it saw.
func judge(seen *atomic.Int64) func(ingest.View) {
	return func(e ingest.View) {
		b, ok := e.Snapshot.Breakdown("extmod_latency", "server")
		if !ok {
			return
		}
		med := map[string]float64{}
		for _, v := range b.Values {
			med[v.Value] = v.Sink.(*metrics.TrendSink).Med()
		}
		seen.Store(int64(len(b.Values)))
		slow := 0.0
		if med["b"] > 2*med["a"] {
			slow = 1
		}
		if m := e.Registry.Get("extmod_verdict"); m != nil {
			e.Push.PushSamples([]metrics.Sample{{Metric: m, Time: e.Time, Value: slow, Tags: e.Tags}})
		}
	}
}

func hookOptions(o *aggregate.Options) {
	o.Breakdowns = []ingest.ByTag{{Metric: "extmod_latency", Tag: "server"}}
	o.Computed = []string{"extmod_verdict"}
}

// gauge is the value of a gauge in the whole test's snapshot, -1 when absent.
func gauge(res *aggregate.Report, name string) float64 {
	for _, s := range res.Snapshot.Series {
		if s.Name == name {
			return s.Sink.(*metrics.GaugeSink).Value
		}
	}
	return -1
}

// TestEndOfTestHook: the hook sees the breakdowns merged from every instance, its gauge (not
// the instances' own) is what the final evaluation judges, and its sections are the result's.
func TestEndOfTestHook(t *testing.T) {
	var seen atomic.Int64
	addr, wait := startAggregatorWith(t, func(o *aggregate.Options) {
		hookOptions(o)
		o.EndOfTest = func(e ingest.View) []summary.Section {
			judge(&seen)(e)
			return []summary.Section{{Title: "per server", Lines: []string{"SLOW b"}}}
		}
	})
	runs := runInstances(t, script("shared-iterations", "iterations: 90", false), addr, thirds, false)
	res := wait()
	for i, r := range runs {
		if code := runner.ExitCode(r.err); code != exitcode.ThresholdsFailed {
			t.Errorf("instance %d: exit %d (%v), want 99", i, code, r.err)
		}
	}
	if strings.Join(res.Verdict.Failed, ",") != "extmod_verdict" || res.Verdict.Aborted {
		t.Errorf("verdict %+v, want extmod_verdict failed at the end", res.Verdict)
	}
	if seen.Load() != 2 || gauge(res, "extmod_verdict") != 1 {
		t.Errorf("hook saw %d servers; gauge %v, want 2 and 1", seen.Load(), gauge(res, "extmod_verdict"))
	}
	if len(res.Sections) != 1 || res.Sections[0].Title != "per server" {
		t.Errorf("sections %+v", res.Sections)
	}
}

// TestDuringTestHook: the periodic hook's gauge stops every instance through an abortOnFail
// threshold long before the scenario's end.
func TestDuringTestHook(t *testing.T) {
	var seen atomic.Int64
	addr, wait := startAggregatorWith(t, func(o *aggregate.Options) {
		hookOptions(o)
		o.DuringTest = judge(&seen)
	})
	runs := runInstances(t, script("constant-vus", "duration: '10m'", true), addr, thirds, false)
	res := wait()
	for i, r := range runs {
		if code := runner.ExitCode(r.err); code != exitcode.ThresholdsFailed || !strings.Contains(r.err.Error(), "abortOnFail") {
			t.Errorf("instance %d: exit %d (%v), want 99 for abortOnFail", i, code, r.err)
		}
	}
	if !res.Verdict.Aborted || strings.Join(res.Verdict.Failed, ",") != "extmod_verdict" || seen.Load() != 2 {
		t.Errorf("verdict %+v, hook saw %d servers", res.Verdict, seen.Load())
	}
}

// TestLateInstanceStopped: an instance that joins after the whole test was aborted is stopped
// as it joins, like those stopped by the abort; it would otherwise run its whole duration (on a
// busy machine the instances' script loads differ by more than an evaluation period).
func TestLateInstanceStopped(t *testing.T) {
	log := &testkit.SyncBuffer{}
	addr, wait := startAggregatorWith(t, func(o *aggregate.Options) {
		hookOptions(o)
		o.DuringTest = judge(new(atomic.Int64))
		o.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	path := filepath.Join(t.TempDir(), "test.js")
	if err := os.WriteFile(path, []byte(script("constant-vus", "duration: '1m'", true)), 0o644); err != nil {
		t.Fatal(err)
	}
	const halves = "0,1/2,1"
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { _, errs[0] = runner.Run(context.Background(), instanceConfig(t, path, addr, halves, 0)) })
	if err := testwait.Until(time.Minute, "the abort", func() bool { return strings.Contains(log.String(), "stopping every instance") }); err != nil {
		t.Error(err)
	}
	start := time.Now()
	_, errs[1] = runner.Run(context.Background(), instanceConfig(t, path, addr, halves, 1))
	took := time.Since(start)
	wg.Wait()
	wait()
	for i, err := range errs {
		if code := runner.ExitCode(err); code != exitcode.ThresholdsFailed || !strings.Contains(err.Error(), "abortOnFail") {
			t.Errorf("instance %d: exit %d (%v), want 99 for abortOnFail", i, code, err)
		}
	}
	if took > 30*time.Second {
		t.Errorf("the late instance ran %s of its 1m", took)
	}
}
