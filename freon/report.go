package freon

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// timerName is the name of the Dropwizard timer dn-echo reports.
const timerName = "rpc-payload"

// durationFactor converts nanoseconds to milliseconds the way Dropwizard's reporters do,
// by multiplying with the reciprocal (ScheduledReporter.convertDuration); dividing by 1e6
// can differ in the last bit, which Double.toString would show.
const durationFactor = 1.0 / 1e6

// Report is the outcome of one run, the figures its report shows.
type Report struct {
	// Start is when the run (and its timer) started; End is when the last worker stopped.
	Start, End time.Time
	// Attempts is the final value of the shared attempt counter.
	Attempts            int64
	Successes, Failures int64
	// Interrupted counts tasks that failed after the context was cancelled; they are in no
	// other count and not in the latencies.
	Interrupted   int64
	Cancelled     bool
	NumberOfTests int64
	Latency       LatencyStats
	// FailuresByLabel breaks Failures down by RunConfig.Label; nil without a Label func.
	FailuresByLabel map[string]int64
	// SampleCap is the exact-sample cap that was exceeded, or 0 when percentiles are exact.
	SampleCap int
	// Servers summarise the tasks of each Outcome.Server, sorted by server; nil when no task had one.
	Servers []ServerStats
	// Loop says which loop ran (closed or open) and how well the open one kept its schedule.
	Loop    Loop
	perTick []int64
}

// labelCount is one line of a failure breakdown.
type labelCount struct {
	Label string
	Count int64
}

// failureBreakdown returns FailuresByLabel sorted by count, largest first, then by label.
func (r *Report) failureBreakdown() []labelCount {
	out := make([]labelCount, 0, len(r.FailuresByLabel))
	for l, c := range r.FailuresByLabel {
		out = append(out, labelCount{l, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// timerSnapshot holds the values of the rpc-payload timer as both reports print them:
// rates in events per second, durations in milliseconds.
type timerSnapshot struct {
	Name                                                       string
	Count                                                      int64
	MeanRate, OneMinuteRate, FiveMinuteRate, FifteenMinuteRate float64
	Min, Max, Mean, StdDev                                     float64
	Median, P75, P95, P98, P99, P999                           float64
}

// reportData is everything a freon report shows, as of one instant.
type reportData struct {
	Timer timerSnapshot
	// TotalSeconds is freon's "Total execution time (sec)": whole seconds, rounded half up.
	TotalSeconds                       int64
	Failures, Successes, NumberOfTests int64
	// Note is empty when the percentiles are exact, else a sentence saying they are not.
	Note string
	// Loop is the open loop's "Loop:" line (empty for freon's closed loop, whose console
	// report stays Java's).
	Loop string
}

// reportAt builds the report as freon's shutdown hook would print it at time at (normally
// now, after the run): the mean and moving-average rates depend on when they are read.
func (r *Report) reportAt(at time.Time) reportData {
	elapsed := at.Sub(r.Start)
	rates := meterRates(r.perTick, r.Latency.Count, elapsed)
	l := r.Latency
	rep := reportData{
		Timer: timerSnapshot{
			Name: timerName, Count: l.Count,
			MeanRate: rates.Mean, OneMinuteRate: rates.OneMinute,
			FiveMinuteRate: rates.FiveMinute, FifteenMinuteRate: rates.FifteenMinute,
			Min: float64(l.Min) * durationFactor, Max: float64(l.Max) * durationFactor,
			Mean: l.Mean * durationFactor, StdDev: l.StdDev * durationFactor,
			Median: l.Median * durationFactor, P75: l.P75 * durationFactor, P95: l.P95 * durationFactor,
			P98: l.P98 * durationFactor, P99: l.P99 * durationFactor, P999: l.P999 * durationFactor,
		},
		// freon takes a millisecond monotonic clock and Math.round(ms / 1000.0).
		TotalSeconds:  int64(math.Round(float64(elapsed.Milliseconds()) / 1000.0)),
		Failures:      r.Failures,
		Successes:     r.Successes,
		NumberOfTests: r.NumberOfTests,
	}
	if r.Loop.Rate.Open() {
		rep.Loop = r.Loop.String()
	}
	if !l.Exact {
		rep.Note = fmt.Sprintf("percentiles are approximate: the run recorded more than %d latencies "+
			"(%d bytes each), so they come from an HDR histogram with %d significant digits; "+
			"count, min, max, mean and stddev are exact", r.SampleCap, bytesPerSample, histDigits)
	}
	return rep
}

// Text is the report as the console layout shows it at time at, for front ends that keep
// a copy (the web dashboard's HTML export).
func (r *Report) Text(at time.Time) string {
	var b strings.Builder
	_ = writeConsoleReport(&b, at, r.reportAt(at), consoleOptions{}) // a strings.Builder never fails
	return b.String()
}
