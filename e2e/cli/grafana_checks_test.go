package cli

import (
	"fmt"
	"maps"
	"math"

	"github.com/dnecho/dnecho/testsupport/teststore"
)

// The checks of TestGrafanaDashboards, by dashboard query ("panel id/refId"). Prometheus queries
// are evaluated over the run with $__rate_interval = $__range = 15m, so a windowed rate at the
// run's last sample covers the whole run; InfluxDB queries with the interval each check names.
//
// Counts must match the summary exactly, failure rates within 1%, latency quantiles within a
// native histogram bucket (about 9%). Calls per second are Prometheus' rate(), which extrapolates
// and misses what a series holds at its first sample (a series of failed calls is born mid-run
// holding a few; on a loaded machine the first push holds many): they get 25%, enough to tell one
// run from two.

// tol is the tolerance of a quantile check: rel for a run of thousands of calls; on a loaded
// machine a run may make only a few hundred, whose p99 rests on a few calls, and two definitions
// of a quantile (InfluxDB's nearest rank, k6's interpolation) or two sets of calls (a windowed
// rate skips each series' first push) then differ by more.
func (w runWant) tol(rel float64) float64 { return tolFor(w.calls, rel) }

// tolFor is tol for a quantile over n calls. Below a thousand calls a p99 rests on a handful of
// tail calls, often far apart: one rank more or less (a native histogram's bucket holding the
// rank, k6's interpolation between two neighbours) moves it by a third or more.
func tolFor(n, rel float64) float64 {
	switch {
	case n >= 5000:
		return rel
	case n >= 1000:
		return max(rel, 0.25)
	}
	return max(rel, 0.5)
}

// promCheck checks a query's series against a run's summaries.
type promCheck func(ss []promSeries, w runWant) error

// window is $__rate_interval in the checks, in seconds.
const window = 15 * 60

func onlySeries(ss []promSeries) (promSeries, error) {
	if len(ss) != 1 {
		return promSeries{}, fmt.Errorf("%d series, want 1", len(ss))
	}
	return ss[0], nil
}

// lastNear checks the one series' last value against want(w) within rel.
func lastNear(want func(runWant) float64, rel float64) promCheck {
	return func(ss []promSeries, w runWant) error {
		s, err := onlySeries(ss)
		if err != nil {
			return err
		}
		if got, want := s.last(), want(w); !near(got, want, rel) {
			return fmt.Errorf("shows %g at the end of the run, the summary says %g (tolerance %g%%)", got, want, 100*rel)
		}
		return nil
	}
}

// stat is a latency stat of the summary in seconds; 0 for a distributed run.
func stat(name string) func(runWant) float64 {
	return func(w runWant) float64 { return w.stats[name] / 1000 }
}

// quantile checks a latency quantile (seconds) of a single-instance run.
func quantile(name string, rel float64) promCheck {
	return func(ss []promSeries, w runWant) error {
		if w.stats == nil {
			return nil
		}
		return lastNear(stat(name), w.tol(rel))(ss, w)
	}
}

// upperBound checks a value that must lie between a stat of the summary and its max: the
// highest per-series quantile is at least the test's and at most its max.
func upperBound(name string) promCheck {
	return func(ss []promSeries, w runWant) error {
		s, err := onlySeries(ss)
		if err != nil {
			return err
		}
		if lo, hi := stat(name)(w), stat("max")(w); s.last() < lo*0.99 || s.last() > hi*1.001 {
			return fmt.Errorf("shows %g s; the test's %s is %g s and its max %g s", s.last(), name, lo, hi)
		}
		return nil
	}
}

func calls(w runWant) float64       { return w.calls }
func failed(w runWant) float64      { return w.failed }
func failureRate(w runWant) float64 { return w.failureRate() }
func checksRate(w runWant) float64  { return w.checksRate }
func perWindow(f func(runWant) float64) func(runWant) float64 {
	return func(w runWant) float64 { return f(w) / window }
}

// perDataNode checks one series per DataNode with ok(value, the DataNode's p99 and the test's
// max in seconds, the quantile tolerance).
func perDataNode(ok func(got, want, max, tol float64) bool) promCheck {
	return func(ss []promSeries, w runWant) error {
		if len(ss) != 3 {
			return fmt.Errorf("%d series, want one per DataNode (3)", len(ss))
		}
		for _, s := range ss {
			want, found := w.perDN[s.Metric["datanode"]]
			// Each DataNode's p99 rests on its share of the calls.
			if w.stats != nil && (!found || !ok(s.last(), want/1000, stat("max")(w), tolFor(w.calls/3, 0.1))) {
				return fmt.Errorf("DataNode %s: %g s, its p99 is %g s (summary: %v)", s.Metric["datanode"], s.last(), want/1000, w.perDN)
			}
		}
		return nil
	}
}

// perDataNodeSplit checks the network panel's series of one kind (RTT or DataNode time): one per
// DataNode, and for a single-instance run ok(value, DataNode) in seconds.
func perDataNodeSplit(ok func(got float64, dn string, w runWant) error) promCheck {
	return func(ss []promSeries, w runWant) error {
		if len(ss) != 3 {
			return fmt.Errorf("%d series, want one per DataNode (3)", len(ss))
		}
		for _, s := range ss {
			if w.stats == nil {
				continue
			}
			if err := ok(s.last(), s.Metric["datanode"], w); err != nil {
				return fmt.Errorf("DataNode %s: %w", s.Metric["datanode"], err)
			}
		}
		return nil
	}
}

// dataNodeTime checks a DataNode time (s): never negative, and not above the DataNode's echo p50
// beyond a quantile's tolerance.
func dataNodeTime(got float64, dn string, w runWant) error {
	if p50 := w.perDNP50[dn] / 1000; got < 0 || got > p50*(1+tolFor(w.calls/3, 0.1)) {
		return fmt.Errorf("DataNode time %g s, its echo p50 is %g s", got, p50)
	}
	return nil
}

var promCommonChecks = map[string]promCheck{
	// The slow DataNodes: what the run's verdict (the most of any instance) named.
	"13/A": lastNear(func(w runWant) float64 { return w.slow }, 0),
	"1/A":  lastNear(perWindow(calls), 0.25),
	"2/A": func(ss []promSeries, w runWant) error {
		s, err := onlySeries(ss)
		if err == nil && s.max() != w.vus {
			err = fmt.Errorf("at most %g VUs, the run had %g", s.max(), w.vus)
		}
		return err
	},
	"5/A": func(ss []promSeries, w runWant) error {
		var all, bad float64
		for _, s := range ss {
			all += s.last() * window
			if s.Metric["result"] != "SUCCESS" {
				bad += s.last() * window
			}
		}
		// rate() skips what each series holds at its first push: a call or two per series.
		slack := 3 * float64(len(ss))
		if math.Abs(all-w.calls) > 0.25*w.calls+slack || math.Abs(bad-w.failed) > 0.25*w.failed+slack {
			return fmt.Errorf("%g calls of which %g failed; the summary says %g and %g", all, bad, w.calls, w.failed)
		}
		return nil
	},
	"6/A":  lastNear(failureRate, 0.01),
	"6/B":  lastNear(failureRate, 0.01),
	"6/C":  lastNear(checksRate, 0.01),
	"8/A":  lastNear(failed, 0),
	"9/A":  lastNear(calls, 0),
	"11/A": lastNear(failureRate, 0.01),
}

func withCommon(m map[string]promCheck) map[string]promCheck {
	maps.Copy(m, promCommonChecks)
	return m
}

// Native histogram buckets are about 9% wide.
var nativeChecks = withCommon(map[string]promCheck{
	"3/A": quantile("p(50)", 0.1), "3/B": quantile("p(95)", 0.1), "3/C": quantile("p(99)", 0.1),
	"3/D": func(ss []promSeries, w runWant) error { // the upper bound of the highest bucket
		if s, err := onlySeries(ss); err != nil || w.stats == nil {
			return err
		} else if mx := stat("max")(w); s.last() < mx || s.last() > mx*1.1 {
			return fmt.Errorf("shows %g s, the max is %g s", s.last(), mx)
		}
		return nil
	},
	"4/A":  perDataNode(func(got, want, _, tol float64) bool { return near(got, want, tol) }),
	"7/A":  quantile("p(99)", 0.1),
	"10/A": quantile("p(50)", 0.1), "10/B": quantile("p(95)", 0.1), "10/C": quantile("p(99)", 0.1),
	// The RTT p50 rests on a few ticks per DataNode (4 a second).
	"12/A": perDataNodeSplit(func(got float64, dn string, w runWant) error {
		if want := w.rttP50[dn] / 1000; !near(got, want, tolFor(w.rttCount[dn], 0.1)) {
			return fmt.Errorf("RTT p50 %g s, the summary says %g s", got, want)
		}
		return nil
	}),
	"12/B": perDataNodeSplit(dataNodeTime),
})

var trendStatChecks = withCommon(map[string]promCheck{
	"3/A": upperBound("p(50)"), "3/B": upperBound("p(95)"), "3/C": upperBound("p(99)"),
	"3/D": lastNear(stat("max"), 0.001),
	// An upper bound of the DataNode's p99, within its quantile tolerance below (the last push
	// may miss the last calls of a loaded run: 2.5% seen) and never above the test's max.
	"4/A": perDataNode(func(got, want, mx, tol float64) bool { return got >= want*(1-tol) && got <= mx*1.001 }),
	"7/A": upperBound("p(99)"),
	// The slowest series' RTT p50: at least the DataNode's (within its tolerance), at most its max.
	"12/A": perDataNodeSplit(func(got float64, dn string, w runWant) error {
		if lo, hi := w.rttP50[dn]/1000, w.rttMax[dn]/1000; got < lo*(1-tolFor(w.rttCount[dn], 0.1)) || got > hi*1.001 {
			return fmt.Errorf("RTT p50 %g s; the DataNode's is %g s and its max %g s", got, lo, hi)
		}
		return nil
	}),
	"12/B": perDataNodeSplit(func(got float64, _ string, w runWant) error {
		if mx := stat("max")(w); got < 0 || got > mx {
			return fmt.Errorf("DataNode time %g s, the test's max %g s", got, mx)
		}
		return nil
	}),
})

// influxCheck is the $__interval a query runs with and its check.
type influxCheck struct {
	interval string
	check    func(ss []teststore.Series, w runWant) error
}

// whole is an interval longer than any test: one bucket holds the whole run.
const whole = "3650d"

// column folds column i of every row of every series.
func column(ss []teststore.Series, i int, f func(acc, v float64) float64) float64 {
	acc := math.NaN()
	for _, s := range ss {
		for _, row := range s.Values {
			if v, ok := row[i].(float64); ok {
				if math.IsNaN(acc) {
					acc = v
				} else {
					acc = f(acc, v)
				}
			}
		}
	}
	return acc
}

func sum(a, b float64) float64 { return a + b }

// influxNear checks the fold of column i against want(w) within rel.
func influxNear(interval string, i int, fold func(a, b float64) float64, want func(runWant) float64, rel float64) influxCheck {
	return influxCompare(interval, i, fold, want, rel)
}

// influxQuantile checks a latency quantile of a single-instance run within w.tol(rel).
func influxCompare(interval string, i int, fold func(a, b float64) float64, want func(runWant) float64, rel float64) influxCheck {
	return influxCheck{interval, func(ss []teststore.Series, w runWant) error {
		if got := column(ss, i, fold); !near(got, want(w), rel) {
			return fmt.Errorf("column %d: %g, the summary says %g (tolerance %g%%)", i, got, want(w), 100*rel)
		}
		return nil
	}}
}

func ms(name string) func(runWant) float64 { return func(w runWant) float64 { return w.stats[name] } }

// Every call is a point: counts and means are exact; InfluxDB's percentile is the nearest rank.
var influxChecks = map[string]influxCheck{
	"1/A": influxNear(whole, 1, sum, calls, 0),
	"2/A": influxNear("1s", 1, math.Max, func(w runWant) float64 { return w.vus }, 0),
	"3/A": {whole, func(ss []teststore.Series, w runWant) error {
		for i, st := range []string{"p(50)", "p(95)", "p(99)", "max"} {
			if err := influxRunQuantile(i+1, []float64{0.5, 0.95, 0.99, 1}[i], st).check(ss, w); err != nil {
				return fmt.Errorf("%s: %w", st, err)
			}
		}
		return nil
	}},
	"4/A": influxPerDataNodeQuantile("echo", 0.99, func(w runWant) map[string]float64 { return w.perDN }),
	"5/A": {whole, func(ss []teststore.Series, w runWant) error {
		var bad []teststore.Series
		for _, s := range ss {
			if s.Tags["result"] != "SUCCESS" {
				bad = append(bad, s)
			}
		}
		if all, f := column(ss, 1, sum), column(bad, 1, sum); all != w.calls || f != w.failed {
			return fmt.Errorf("%g calls of which %g failed; the summary says %g and %g", all, f, w.calls, w.failed)
		}
		return nil
	}},
	"6/A":  influxNear(whole, 1, math.Max, failureRate, 0.01),
	"6/B":  influxNear(whole, 1, math.Max, checksRate, 0.01),
	"7/A":  influxRunQuantile(1, 0.99, "p(99)"),
	"8/A":  influxNear(whole, 1, sum, failed, 0),
	"9/A":  influxNear(whole, 1, sum, calls, 0),
	"11/A": influxNear(whole, 1, math.Max, failureRate, 0.01),
	"12/A": influxPerDataNodeQuantile("rtt", 0.5, func(w runWant) map[string]float64 { return w.rttP50 }),
	"12/B": influxPerDataNodeQuantile("echo", 0.5, func(w runWant) map[string]float64 { return w.perDNP50 }),
	"13/A": influxNear(whole, 1, math.Max, func(w runWant) float64 { return w.slow }, 0),
}

// The InfluxDB dashboard's quantiles are checked against the run's own samples in InfluxDB, not
// against the summary with a tolerance: a p99 of a thousand calls, or the p50 of twenty RTT
// ticks, sits between two samples that a loaded machine can set far apart, so a tolerance would
// judge the machine rather than the panel. A panel must show the sample of a neighbouring rank
// of the quantile (InfluxDB's percentile is a nearest rank), and the summary's figure must be
// k6's quantile of those same samples (so every sample reached both).

// influxQuantileOf checks one column of one series: the quantile q of the samples of kind
// ("echo", "rtt") and DataNode ("" for all), which the summary gives as want (ms).
func influxQuantileOf(got float64, w runWant, kind, dn string, q, want float64) error {
	raw := w.raw[kind][dn]
	n := len(raw)
	if n == 0 {
		return fmt.Errorf("%s of DataNode %q: no samples in InfluxDB", kind, dn)
	}
	r := q * float64(n-1)
	lo, hi := raw[int(math.Floor(r))], raw[int(math.Ceil(r))]
	if got != lo && got != hi {
		return fmt.Errorf("%s of DataNode %q: p(%g) %g ms, want a sample of the neighbouring ranks of the %d (%g or %g)", kind, dn, 100*q, got, n, lo, hi)
	}
	// The summary's Trends are exact up to 1024 samples, then 3 significant digits.
	tol := 1e-6
	if n > 1024 {
		tol = 2e-3
	}
	if k := k6Quantile(raw, q); !near(want, k, tol) {
		return fmt.Errorf("%s of DataNode %q: the summary's p(%g) %g ms, k6's of the %d samples in InfluxDB is %g", kind, dn, 100*q, want, n, k)
	}
	return nil
}

// influxPerDataNodeQuantile checks one series per DataNode: the quantile q of its samples of
// kind, which the summary gives per DataNode as want.
func influxPerDataNodeQuantile(kind string, q float64, want func(runWant) map[string]float64) influxCheck {
	return influxCheck{whole, func(ss []teststore.Series, w runWant) error {
		if len(ss) != 3 {
			return fmt.Errorf("%d series, want one per DataNode (3)", len(ss))
		}
		if w.stats == nil {
			return nil
		}
		for _, s := range ss {
			dn := s.Tags["datanode"]
			if kind == "rtt" && float64(len(w.raw[kind][dn])) != w.rttCount[dn] {
				return fmt.Errorf("DataNode %s: %d RTT samples in InfluxDB, the summary counts %g", dn, len(w.raw[kind][dn]), w.rttCount[dn])
			}
			if err := influxQuantileOf(column([]teststore.Series{s}, 1, math.Max), w, kind, dn, q, want(w)[dn]); err != nil {
				return err
			}
		}
		return nil
	}}
}

// influxRunQuantile checks column i: the quantile q of every call of a single-instance run.
func influxRunQuantile(i int, q float64, stat string) influxCheck {
	return influxCheck{whole, func(ss []teststore.Series, w runWant) error {
		if w.stats == nil {
			return nil
		}
		return influxQuantileOf(column(ss, i, math.Max), w, "echo", "", q, w.stats[stat])
	}}
}

// k6Quantile is k6's quantile q of sorted values: linear between the two neighbouring ranks.
func k6Quantile(sorted []float64, q float64) float64 {
	r := q * float64(len(sorted)-1)
	lo := int(r)
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[lo+1]-sorted[lo])*(r-float64(lo))
}
