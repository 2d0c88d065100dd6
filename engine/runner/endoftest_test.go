package runner

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// The end-of-test hook's script: a Trend broken down by a tag, and a Gauge the hook sets.
const endOfTestScript = `
import { Trend, Gauge } from 'k6/metrics';
const lat = new Trend('extmod_latency', true);
new Gauge('extmod_verdict');
export const options = { iterations: 3, thresholds: { extmod_verdict: ['value==0'] } };
export default function () {
  lat.add(1, { server: 'a' });
  lat.add(9, { server: 'b' });
}`

// endOfTest is a hook that judges server b slow when its latency is more than twice a's: it
// sets the verdict gauge and adds a section.
func endOfTest(seen *int) func(ingest.View) []summary.Section {
	return func(e ingest.View) []summary.Section {
		b, ok := e.Snapshot.Breakdown("extmod_latency", "server")
		if !ok {
			return nil
		}
		med := map[string]float64{}
		for _, v := range b.Values {
			med[v.Value] = v.Sink.(*metrics.TrendSink).Med()
			*seen++
		}
		slow := 0.0
		if med["b"] > 2*med["a"] {
			slow = 1
		}
		e.Push.PushSamples([]metrics.Sample{{Metric: e.Registry.Get("extmod_verdict"), Time: e.Time, Value: slow, Tags: e.Tags}})
		return []summary.Section{{Title: "per server", Lines: []string{"SLOW b"}}}
	}
}

// The hook sees the breakdowns, even with the summary disabled; the gauge it sets is what the
// final threshold evaluation judges; its section is in the text summary.
func TestEndOfTest(t *testing.T) {
	for _, mode := range []string{"compact", "disabled"} {
		t.Run(mode, func(t *testing.T) {
			seen := 0
			out := runScript(t, endOfTestScript, options.Options{SummaryMode: null.From(mode)}, func(c *Config) {
				c.Breakdowns = []ingest.ByTag{{Metric: "extmod_latency", Tag: "server"}}
				c.EndOfTest = endOfTest(&seen)
			}, nil)
			if ExitCode(out.err) != exitcode.ThresholdsFailed {
				t.Fatalf("exit %d (%v), want %d", ExitCode(out.err), out.err, exitcode.ThresholdsFailed)
			}
			if seen != 2 {
				t.Errorf("the hook saw %d servers, want 2", seen)
			}
			if shown := strings.Contains(out.stdout, "█ PER SERVER\n\n    SLOW b"); shown != (mode == "compact") {
				t.Errorf("section shown %v:\n%s", shown, out.stdout)
			}
		})
	}
}

// Without the hook the gauge is never set and the threshold holds (the script alone passes).
func TestEndOfTestUnset(t *testing.T) {
	out := runScript(t, endOfTestScript, options.Options{}, nil, nil)
	if out.err != nil {
		t.Fatalf("%v\n%s", out.err, out.stdout)
	}
}

// duringTestScript runs for a minute unless stopped, server b slower than a from the first
// iteration, with an abortOnFail threshold on the verdict gauge.
const duringTestScript = `
import { Trend, Gauge } from 'k6/metrics';
import { sleep } from 'k6';
const lat = new Trend('extmod_latency', true);
new Gauge('extmod_verdict');
export const options = {
  scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1m' } },
  thresholds: { extmod_verdict: [{ threshold: 'value==0', abortOnFail: true }] },
};
export default function () {
  lat.add(1, { server: 'a' });
  lat.add(9, { server: 'b' });
  sleep(0.01);
}`

// The periodic hook sees the breakdowns during the run (and nothing else), and the gauge it
// pushes is judged in the same period: the abortOnFail threshold stops the run at its first tick.
func TestDuringTestAborts(t *testing.T) {
	var calls atomic.Int64
	var onlyBreakdowns atomic.Bool
	onlyBreakdowns.Store(true)
	judge := endOfTest(new(int))
	out := runScript(t, duringTestScript, options.Options{SummaryMode: null.From("disabled")}, func(c *Config) {
		c.Breakdowns = []ingest.ByTag{{Metric: "extmod_latency", Tag: "server"}}
		c.DuringTest = func(e ingest.View) {
			calls.Add(1)
			if len(e.Snapshot.Series) > 0 || e.Time.IsZero() {
				onlyBreakdowns.Store(false)
			}
			judge(e)
		}
	}, nil)
	if out.code != int(exitcode.ThresholdsFailed) || !strings.Contains(out.err.Error(), "abortOnFail") {
		t.Fatalf("exit %d (%v), want %d with the abortOnFail message", out.code, out.err, exitcode.ThresholdsFailed)
	}
	if out.took > 20*time.Second {
		t.Errorf("took %s: the gauge pushed during the test did not stop it", out.took)
	}
	if calls.Load() == 0 || !onlyBreakdowns.Load() {
		t.Errorf("hook called %d times, with the breakdowns only: %v", calls.Load(), onlyBreakdowns.Load())
	}
}
