package threshold

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// SinkSource provides sinks by name (a metric or sub-metric name). ingest.Collector and
// ingest.Snapshot implement it. Returned sinks are only read.
type SinkSource interface {
	Sink(name string) (metrics.Sink, bool)
}

// Entry is the thresholds of one metric or sub-metric.
type Entry struct {
	Name       string             // sink name: "metric" or canonical "metric{k:v}"
	Metric     *metrics.Metric    // the metric, or the sub-metric's parent
	Submetric  *metrics.Submetric // nil for a plain metric
	Thresholds []*Threshold
}

// Threshold is one parsed source with the outcome of its latest evaluation.
type Threshold struct {
	Source Source
	Expr   Expression

	evaluated, failed bool
	value             float64
	hasValue          bool
}

// Outcome is a threshold's latest evaluation, for summaries.
type Outcome struct {
	Source    string // the expression as written
	Agg       string // the aggregation as written, e.g. "p(99)"
	OK        bool   // true also when never evaluated or when there was no value (empty Rate)
	Value     float64
	HasValue  bool
	Evaluated bool
}

// Set is the parsed thresholds of a test. It is safe for concurrent use.
type Set struct {
	mu      sync.Mutex
	entries []*Entry // sorted by name
	byName  map[string]*Entry
}

// New parses cfg against the registered metrics. It returns warnings for selectors that can never
// match (vu and iter are metadata) and a *ConfigError for the first invalid key in name order.
func New(cfg Config, reg *metrics.Registry) (*Set, []string, error) {
	s := &Set{byName: map[string]*Entry{}}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var warnings []string
	for _, key := range keys {
		sel, err := parseKey(key)
		if err != nil {
			return nil, nil, &ConfigError{Key: key, Reason: err.Error()}
		}
		m := reg.Get(sel.metric)
		if m == nil {
			return nil, nil, &ConfigError{Key: key, Reason: unknownMetric(sel.metric, reg)}
		}
		for _, k := range sel.keys {
			if metrics.IsMetadataTag(k) {
				warnings = append(warnings, fmt.Sprintf("threshold on %q selects on %q, which is metadata rather than a tag: it will never match a sample", key, k))
			}
		}
		e := s.entry(sel, m)
		for _, src := range cfg[key] {
			expr, err := ParseExpression(src.Threshold)
			if err != nil {
				return nil, nil, &ConfigError{Key: key, Reason: err.Error()}
			}
			if err := checkAllowed(expr.Agg, m); err != nil {
				return nil, nil, &ConfigError{Key: key, Reason: fmt.Sprintf("threshold %q: %v", src.Threshold, err)}
			}
			e.Thresholds = append(e.Thresholds, &Threshold{Source: src, Expr: expr})
		}
	}
	sort.Slice(s.entries, func(i, j int) bool { return s.entries[i].Name < s.entries[j].Name })
	return s, warnings, nil
}

// entry returns the entry for a selector; keys spelled differently (`m{a:1}`, `m{ a: "1" }`)
// share one.
func (s *Set) entry(sel selector, m *metrics.Metric) *Entry {
	name := sel.name()
	if e := s.byName[name]; e != nil {
		return e
	}
	e := &Entry{Name: name, Metric: m}
	if sel.tags != nil {
		e.Submetric = &metrics.Submetric{Name: name, Suffix: sel.suffix, Parent: m, Tags: sel.tags}
	}
	s.entries = append(s.entries, e)
	s.byName[name] = e
	return e
}

// Entries returns the entries sorted by name. They must not be modified.
func (s *Set) Entries() []*Entry { return s.entries }

// Metrics returns the metrics that need a sink: every metric with thresholds and every parent of
// a sub-metric.
func (s *Set) Metrics() []*metrics.Metric {
	seen := map[*metrics.Metric]bool{}
	var out []*metrics.Metric
	for _, e := range s.entries {
		if !seen[e.Metric] {
			seen[e.Metric] = true
			out = append(out, e.Metric)
		}
	}
	return out
}

// Submetrics returns the sub-metrics the thresholds select, sorted by name.
func (s *Set) Submetrics() []metrics.Submetric {
	var out []metrics.Submetric
	for _, e := range s.entries {
		if e.Submetric != nil {
			out = append(out, *e.Submetric)
		}
	}
	return out
}

// Sources returns the sources defined on name (a metric or canonical sub-metric name).
func (s *Set) Sources(name string) []Source {
	e := s.byName[name]
	if e == nil {
		return nil
	}
	out := make([]Source, len(e.Thresholds))
	for i, t := range e.Thresholds {
		out[i] = t.Source
	}
	return out
}

// Outcomes returns the latest evaluation of name's thresholds, in definition order; nil when it
// has none.
func (s *Set) Outcomes(name string) []Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byName[name]
	if e == nil || len(e.Thresholds) == 0 {
		return nil
	}
	out := make([]Outcome, len(e.Thresholds))
	for i, t := range e.Thresholds {
		out[i] = Outcome{Source: t.Source.Threshold, Agg: t.Expr.Agg.Text, OK: !t.failed,
			Value: t.value, HasValue: t.hasValue, Evaluated: t.evaluated}
	}
	return out
}

// Tainted reports whether any threshold failed at its latest evaluation (REST status `tainted`).
func (s *Set) Tainted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		for _, t := range e.Thresholds {
			if t.failed {
				return true
			}
		}
	}
	return false
}

// Evaluation is the outcome of one evaluation of the thresholds.
type Evaluation struct {
	Failed []string // names with a failing threshold, sorted
	Abort  bool     // during the run: an abortOnFail threshold failed past its delayAbortEval
	Final  bool
}

// Err is a *FailedError when the evaluation should end the test: at the end with any failure, or
// during the run with an abort. Otherwise nil.
func (r Evaluation) Err() error {
	if len(r.Failed) == 0 || (!r.Final && !r.Abort) {
		return nil
	}
	return &FailedError{Metrics: r.Failed, Aborted: r.Abort}
}

// Evaluate checks every threshold against src. elapsed is the test run time at evaluation: the
// divisor of a Counter's rate and the clock of delayAbortEval. During the run (final false) empty
// sinks are skipped and keep their previous outcome; at the end they are evaluated too.
func (s *Set) Evaluate(src SinkSource, elapsed time.Duration, final bool) Evaluation {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := Evaluation{Final: final}
	for _, e := range s.entries {
		sink, ok := src.Sink(e.Name)
		if !ok {
			sink = metrics.NewSink(e.Metric)
		}
		if sink == nil || (!final && sink.IsEmpty()) {
			continue
		}
		failed := false
		for _, t := range e.Thresholds {
			t.value, t.hasValue = aggregate(sink, t.Expr.Agg, elapsed)
			t.evaluated = true
			t.failed = t.hasValue && !t.Expr.Holds(t.value)
			if !t.failed {
				continue
			}
			failed = true
			d := t.Source.DelayAbortEval
			if !final && t.Source.AbortOnFail && (d == 0 || d < elapsed) {
				res.Abort = true
			}
		}
		if failed {
			res.Failed = append(res.Failed, e.Name)
		}
	}
	return res
}

// aggregate reads one aggregation from a sink. ok is false when there is no value: a Rate without
// samples, whose thresholds pass (docs/k6-compat.md#expressions).
func aggregate(sink metrics.Sink, a Aggregation, elapsed time.Duration) (float64, bool) {
	switch s := sink.(type) {
	case *metrics.CounterSink:
		if a.Method == "rate" {
			return s.Rate(elapsed), true
		}
		return s.Sum, true
	case *metrics.GaugeSink:
		return s.Value, true
	case *metrics.RateSink:
		return s.Rate()
	case *metrics.TrendSink:
		switch a.Method {
		case "avg":
			return s.Avg(), true
		case "min":
			return s.Min(), true
		case "max":
			return s.Max(), true
		case "med":
			return s.Med(), true
		case "p":
			return s.Percentile(a.P), true
		}
	}
	return 0, false
}
