package threshold

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type env struct {
	reg                      *metrics.Registry
	b                        *metrics.Builtins
	rtt, ops, inflight, errs *metrics.Metric
}

func newEnv() *env {
	reg := metrics.NewRegistry()
	return &env{
		reg:      reg,
		b:        metrics.RegisterBuiltins(reg),
		rtt:      reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time),
		ops:      reg.MustNewMetric("extmod_reqs", metrics.Counter, metrics.Default),
		inflight: reg.MustNewMetric("extmod_inflight", metrics.Gauge, metrics.Default),
		errs:     reg.MustNewMetric("extmod_req_failed", metrics.Rate, metrics.Default),
	}
}

// sinks is a SinkSource over plain sinks.
type sinks map[string]metrics.Sink

func (s sinks) Sink(name string) (metrics.Sink, bool) { v, ok := s[name]; return v, ok }

func add(s metrics.Sink, vals ...float64) metrics.Sink {
	for _, v := range vals {
		s.Add(metrics.Sample{Value: v})
	}
	return s
}

func mustSet(t *testing.T, e *env, js string) *Set {
	t.Helper()
	cfg, err := DecodeConfig([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := New(cfg, e.reg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewErrors(t *testing.T) {
	e := newEnv()
	for _, tc := range []struct{ js, want string }{
		{`{"nope":["count<1"]}`, `invalid threshold defined on nope; reason: no metric name "nope" found`},
		{`{"nope{a:b}":["count<1"]}`, `invalid threshold defined on nope{a:b}; reason: no metric name "nope" found`},
		{`{"extmod_req_duration{a}":["avg<1"]}`, `invalid threshold defined on extmod_req_duration{a}; reason: sub-metric selector entry "a" is not of the form key:value`},
		{`{"extmod_req_duration":["count<1"]}`, `invalid threshold defined on extmod_req_duration; reason: threshold "count<1": unsupported aggregation method "count" on metric "extmod_req_duration"; supported aggregation methods for this metric are: avg, min, max, med, p(N)`},
		{`{"checks":["value>1"]}`, `invalid threshold defined on checks; reason: threshold "value>1": unsupported aggregation method "value" on metric "checks"; supported aggregation methods for this metric are: rate`},
		{`{"vus":["p(95)<1"]}`, `invalid threshold defined on vus; reason: threshold "p(95)<1": unsupported aggregation method "p(95)" on metric "vus"; supported aggregation methods for this metric are: value`},
		{`{"iterations":["avg<1"]}`, `invalid threshold defined on iterations; reason: threshold "avg<1": unsupported aggregation method "avg" on metric "iterations"; supported aggregation methods for this metric are: count, rate`},
		{`{"iterations":["count<<1"]}`, `invalid threshold defined on iterations; reason: malformed threshold expression "count<<1": "<1" is not a number`},
		{`{"a_metric":["x"], "iterations":["count<"]}`, `invalid threshold defined on a_metric; reason: no metric name "a_metric" found`},
	} {
		cfg, err := DecodeConfig([]byte(tc.js))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = New(cfg, e.reg)
		var ce *ConfigError
		if !errors.As(err, &ce) || err.Error() != tc.want || ce.ExitCode() != 104 {
			t.Errorf("%s:\n got  %v\n want %s", tc.js, err, tc.want)
		}
	}
}

func TestDecodeConfig(t *testing.T) {
	cfg, err := DecodeConfig([]byte(`{
		"extmod_req_duration{datanode:dn1}": ["p(99)<5", {"threshold": "avg<2", "abortOnFail": true, "delayAbortEval": "10s", "extra": 1}],
		"checks": [{"threshold": "rate>0.9", "abortOnFail": false}, {"threshold": "rate>0.5", "abortOnFail": true, "delayAbortEval": 1500}],
		"iterations": [{"threshold": "count>1", "abortOnFail": true, "delayAbortEval": "1d2h"}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg["extmod_req_duration{datanode:dn1}"]
	if len(got) != 2 || got[0].Threshold != "p(99)<5" || !got[1].AbortOnFail || got[1].DelayAbortEval != 10*time.Second {
		t.Errorf("sources %+v", got)
	}
	if d := cfg["checks"][1].DelayAbortEval; d != 1500*time.Millisecond {
		t.Errorf("numeric delay %v, want 1.5s", d)
	}
	if d := cfg["iterations"][0].DelayAbortEval; d != 26*time.Hour {
		t.Errorf("day delay %v, want 26h", d)
	}
	// Re-serialised: abortOnFail false collapses to the string; the delay keeps its spelling.
	out, _ := marshalNoHTML(cfg["checks"])
	if string(out) != `["rate>0.9",{"threshold":"rate>0.5","abortOnFail":true,"delayAbortEval":"1500ms"}]` {
		t.Errorf("marshal: %s", out)
	}
	out, _ = marshalNoHTML(cfg["extmod_req_duration{datanode:dn1}"])
	if string(out) != `["p(99)<5",{"threshold":"avg<2","abortOnFail":true,"delayAbortEval":"10s"}]` {
		t.Errorf("marshal: %s", out)
	}
	out, _ = marshalNoHTML(Source{Threshold: "rate<1", AbortOnFail: true})
	if string(out) != `{"threshold":"rate<1","abortOnFail":true}` {
		t.Errorf("marshal without delay: %s", out)
	}

	for _, tc := range []struct{ js, want string }{
		{`[]`, "invalid threshold defined on thresholds; reason: must be an object mapping metric names to arrays of thresholds: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{`{"checks": "rate>1"}`, "invalid threshold defined on checks; reason: thresholds must be an array of strings or objects: json: cannot unmarshal string into Go value of type []threshold.Source"},
		{`{"checks": [1]}`, "invalid threshold defined on checks; reason: thresholds must be an array of strings or objects: a threshold must be a string or an object {threshold, abortOnFail, delayAbortEval}: json: cannot unmarshal number into Go value of type threshold.sourceObject"},
		{`{"checks": [{"threshold":"rate>1","delayAbortEval":"soon"}]}`, `invalid threshold defined on checks; reason: thresholds must be an array of strings or objects: threshold "rate>1": delayAbortEval: invalid duration "soon"`},
		{`{"checks": [{"threshold":"rate>1","delayAbortEval":true}]}`, `invalid threshold defined on checks; reason: thresholds must be an array of strings or objects: threshold "rate>1": delayAbortEval: true is not a duration (use a string such as "10s" or a number of milliseconds)`},
		{`{"checks": [{"threshold":"rate>1","delayAbortEval":"-5s"}]}`, `invalid threshold defined on checks; reason: thresholds must be an array of strings or objects: threshold "rate>1": delayAbortEval: duration "-5s" is negative`},
	} {
		_, err := DecodeConfig([]byte(tc.js))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got  %v\n want %s", tc.js, err, tc.want)
		}
	}
}

func TestSubmetricsAndWarnings(t *testing.T) {
	e := newEnv()
	cfg, _ := DecodeConfig([]byte(`{"extmod_req_duration{datanode:dn1}":["avg<1"], "extmod_req_duration{ datanode: 'dn1' }":["max<2"],
		"extmod_req_duration{vu:3}":["avg<1"], "extmod_req_duration":["p(99)<3"]}`))
	s, warns, err := New(cfg, e.reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `selects on "vu"`) {
		t.Errorf("warnings %q", warns)
	}
	subs := s.Submetrics()
	if len(subs) != 2 || subs[0].Name != "extmod_req_duration{datanode:dn1}" || subs[0].Suffix != "datanode:dn1" || subs[0].Parent != e.rtt {
		t.Fatalf("submetrics %+v", subs)
	}
	if got := s.Sources("extmod_req_duration{datanode:dn1}"); len(got) != 2 {
		t.Errorf("spellings of one selector must share an entry: %+v", got)
	}
	if ms := s.Metrics(); len(ms) != 1 || ms[0] != e.rtt {
		t.Errorf("metrics %v", ms)
	}
	if s.Sources("nope") != nil || s.Outcomes("nope") != nil {
		t.Error("unknown name")
	}
	if len(s.Entries()) != 3 || s.Entries()[0].Name != "extmod_req_duration" {
		t.Errorf("entries not sorted by name")
	}
}

func TestEvaluatePerType(t *testing.T) {
	e := newEnv()
	s := mustSet(t, e, `{
		"extmod_reqs": ["count>=10", "rate>=5", "rate<4"],
		"extmod_inflight": ["value<3"],
		"extmod_req_failed": ["rate<0.1"],
		"checks": ["rate>0.99"],
		"extmod_req_duration": ["p(50)==3", "med==3", "avg==3", "min==1", "max==5", "p(100)<5"]
	}`)
	src := sinks{
		"extmod_reqs":         add(&metrics.CounterSink{}, 4, 6),
		"extmod_inflight":     add(&metrics.GaugeSink{}, 9, 2),
		"extmod_req_failed":   add(&metrics.RateSink{}, 0, 0, 0, 1),
		"checks":              &metrics.RateSink{}, // no samples: passes at the end
		"extmod_req_duration": add(metrics.NewTrendSink(metrics.Time), 1, 2, 3, 4, 5),
	}
	r := s.Evaluate(src, 2*time.Second, true)
	want := []string{"extmod_req_duration", "extmod_req_failed", "extmod_reqs"}
	if strings.Join(r.Failed, ",") != strings.Join(want, ",") {
		t.Errorf("failed %v, want %v", r.Failed, want)
	}
	check := func(name string, ok ...bool) {
		t.Helper()
		got := s.Outcomes(name)
		for i := range ok {
			if got[i].OK != ok[i] || !got[i].Evaluated {
				t.Errorf("%s %q: ok %v, want %v (value %v)", name, got[i].Source, got[i].OK, ok[i], got[i].Value)
			}
		}
	}
	check("extmod_reqs", true, true, false) // count 10, rate 10/2s = 5
	check("extmod_inflight", true)          // last value 2
	check("extmod_req_failed", false)       // 0.25
	check("checks", true)
	check("extmod_req_duration", true, true, true, true, true, false)
	if o := s.Outcomes("checks")[0]; o.HasValue {
		t.Error("empty rate must have no value")
	}
	if o := s.Outcomes("extmod_reqs")[1]; o.Value != 5 || o.Agg != "rate" {
		t.Errorf("counter rate outcome %+v", o)
	}
	err := r.Err()
	var fe *FailedError
	if !errors.As(err, &fe) || fe.ExitCode() != 99 ||
		err.Error() != "thresholds on metrics 'extmod_req_duration, extmod_req_failed, extmod_reqs' have been crossed" {
		t.Errorf("err %v", err)
	}
	if !s.Tainted() {
		t.Error("not tainted")
	}
}

func TestEmptySinksRunVersusEnd(t *testing.T) {
	e := newEnv()
	s := mustSet(t, e, `{"extmod_req_duration": ["p(95)>1"], "extmod_reqs": ["count>0"]}`)
	src := sinks{"extmod_req_duration": metrics.NewTrendSink(metrics.Time)} // extmod_reqs has no sink at all
	if r := s.Evaluate(src, time.Second, false); len(r.Failed) != 0 || r.Err() != nil || s.Tainted() {
		t.Errorf("run-time evaluation must skip empty sinks: %+v", r)
	}
	if o := s.Outcomes("extmod_req_duration")[0]; o.Evaluated || !o.OK {
		t.Errorf("skipped threshold outcome %+v", o)
	}
	r := s.Evaluate(src, time.Second, true)
	if strings.Join(r.Failed, ",") != "extmod_req_duration,extmod_reqs" {
		t.Errorf("end evaluation must not skip empty sinks: %v", r.Failed)
	}
}

func TestAbortTiming(t *testing.T) {
	e := newEnv()
	failing := sinks{"extmod_req_failed": add(&metrics.RateSink{}, 1, 1)}
	for _, tc := range []struct {
		name    string
		js      string
		elapsed time.Duration
		abort   bool
	}{
		{"no abortOnFail", `{"extmod_req_failed":["rate<0.1"]}`, time.Minute, false},
		{"abort without delay", `{"extmod_req_failed":[{"threshold":"rate<0.1","abortOnFail":true}]}`, time.Second, true},
		{"before delay", `{"extmod_req_failed":[{"threshold":"rate<0.1","abortOnFail":true,"delayAbortEval":"10s"}]}`, 5 * time.Second, false},
		{"at delay", `{"extmod_req_failed":[{"threshold":"rate<0.1","abortOnFail":true,"delayAbortEval":"10s"}]}`, 10 * time.Second, false},
		{"past delay", `{"extmod_req_failed":[{"threshold":"rate<0.1","abortOnFail":true,"delayAbortEval":"10s"}]}`, 11 * time.Second, true},
		{"passing", `{"extmod_req_failed":[{"threshold":"rate>0.1","abortOnFail":true}]}`, time.Minute, false},
	} {
		s := mustSet(t, e, tc.js)
		r := s.Evaluate(failing, tc.elapsed, false)
		if r.Abort != tc.abort {
			t.Errorf("%s: abort %v, want %v", tc.name, r.Abort, tc.abort)
		}
		if tc.abort && (r.Err() == nil || r.Err().Error() !=
			"thresholds on metrics 'extmod_req_failed' were crossed; at least one has abortOnFail enabled, stopping test prematurely") {
			t.Errorf("%s: err %v", tc.name, r.Err())
		}
		if !tc.abort && r.Err() != nil {
			t.Errorf("%s: run-time failure without abort must not end the test: %v", tc.name, r.Err())
		}
		if fin := s.Evaluate(failing, tc.elapsed, true); fin.Abort {
			t.Errorf("%s: the end evaluation never aborts", tc.name)
		}
	}
}

// lockedSinks lets a test change the sinks while Watch reads them.
type lockedSinks struct {
	mu sync.Mutex
	s  sinks
}

func (l *lockedSinks) Sink(name string) (metrics.Sink, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.s[name]
	if ok {
		v = v.Clone()
	}
	return v, ok
}

// TestWatch runs on synctest's virtual clock: the watch ticks every millisecond, so 5 ticks pass
// exactly before the sink starts failing.
func TestWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv()
		s := mustSet(t, e, `{"extmod_req_failed":[{"threshold":"rate<0.5","abortOnFail":true}]}`)
		src := &lockedSinks{s: sinks{"extmod_req_failed": add(&metrics.RateSink{}, 0)}}
		aborted := make(chan error, 1)
		done := make(chan struct{})
		var ticks atomic.Int64
		go func() {
			defer close(done)
			Watch{Set: func() *Set { return s }, Source: src, Elapsed: func() time.Duration { return time.Second }, Interval: time.Millisecond,
				Tick: func(time.Time) { ticks.Add(1) }, OnAbort: func(err error) { aborted <- err }}.Run(context.Background())
		}()
		time.Sleep(5 * time.Millisecond)
		synctest.Wait()
		if n := ticks.Load(); n != 5 {
			t.Errorf("%d ticks in 5 intervals, want 5", n)
		}
		select {
		case err := <-aborted:
			t.Fatalf("aborted while passing: %v", err)
		default:
		}
		src.mu.Lock()
		add(src.s["extmod_req_failed"], 1, 1, 1)
		src.mu.Unlock()
		select {
		case err := <-aborted:
			var fe *FailedError
			if !errors.As(err, &fe) || !fe.Aborted {
				t.Errorf("abort error %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("no abort at the next tick")
		}
		<-done // Watch returns after an abort

		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			Watch{Set: func() *Set { return s }, Source: src, Elapsed: func() time.Duration { return 0 }, OnAbort: func(error) {}}.Run(ctx)
		}()
		cancel()
		<-stopped
	})
}

// A tick that pushes what the thresholds judge is judged in its own period: the tick makes the
// sink fail and the same tick's evaluation aborts. A nil Set only ticks.
func TestWatchTickBeforeEvaluation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv()
		s := mustSet(t, e, `{"extmod_req_failed":[{"threshold":"rate<0.5","abortOnFail":true}]}`)
		src := &lockedSinks{s: sinks{"extmod_req_failed": add(&metrics.RateSink{}, 0)}}
		var ticks int
		var abortedAt int
		Watch{Set: func() *Set { return s }, Source: src, Elapsed: func() time.Duration { return time.Second }, Interval: time.Millisecond,
			Tick: func(time.Time) {
				ticks++
				if ticks == 3 {
					src.mu.Lock()
					add(src.s["extmod_req_failed"], 1, 1, 1)
					src.mu.Unlock()
				}
			}, OnAbort: func(error) { abortedAt = ticks }}.Run(context.Background())
		if abortedAt != 3 {
			t.Errorf("aborted at tick %d, want 3 (the tick that made the sink fail)", abortedAt)
		}

		var none *Set
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		Watch{Set: func() *Set { return none }, Source: src, Elapsed: func() time.Duration { return 0 }, Interval: time.Millisecond,
			Tick: func(time.Time) {
				if n++; n == 4 {
					cancel()
				}
			}, OnAbort: func(error) { t.Error("a nil Set aborted") }}.Run(ctx)
		if n != 4 {
			t.Errorf("a nil Set ticked %d times, want 4", n)
		}
	})
}

// With TickAfterAbort the watch goes on ticking once it reported an abort, and evaluates
// nothing more: one abort, then ticks until ctx ends (the aggregator's gauge while the
// instances stop). The Set is read at every tick: one that arrives late is evaluated.
func TestWatchTickAfterAbort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv()
		failing := mustSet(t, e, `{"extmod_req_failed":[{"threshold":"rate<0.5","abortOnFail":true}]}`)
		src := &lockedSinks{s: sinks{"extmod_req_failed": add(&metrics.RateSink{}, 1, 1)}}
		var set *Set
		ctx, cancel := context.WithCancel(context.Background())
		ticks, aborts := 0, 0
		Watch{Set: func() *Set { return set }, Source: src, Elapsed: func() time.Duration { return time.Second }, Interval: time.Millisecond,
			Tick: func(time.Time) {
				ticks++
				switch ticks {
				case 2:
					set = failing // the thresholds arrive
				case 6:
					cancel()
				}
			}, OnAbort: func(error) { aborts++ }, TickAfterAbort: true}.Run(ctx)
		if ticks != 6 || aborts != 1 {
			t.Errorf("%d ticks, %d aborts; want 6 ticks and the one abort of tick 2", ticks, aborts)
		}
	})
}
