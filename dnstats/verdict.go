package dnstats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Verdict defaults (docs/slow-datanode.md).
const (
	// DefaultMinCalls is how many calls a DataNode needs to be judged or to count among the
	// others: below it a p99 is one or two calls' worth of luck.
	DefaultMinCalls = 100
	// DefaultSlowFactor is how many times the others' median p99 a DataNode's p99 must exceed to
	// be named slow.
	DefaultSlowFactor = 2.0
)

// Options are the verdict's parameters. Start from DefaultOptions.
type Options struct {
	// MinCalls is the fewest calls a DataNode needs to take part in the verdict.
	MinCalls int64
	// SlowFactor: a DataNode is slow when its p99 is more than SlowFactor × the median p99 of
	// the other judged DataNodes.
	SlowFactor float64
}

// DefaultOptions returns DefaultMinCalls and DefaultSlowFactor.
func DefaultOptions() Options {
	return Options{MinCalls: DefaultMinCalls, SlowFactor: DefaultSlowFactor}
}

// Validate checks the options; the error names the field and the allowed values.
func (o Options) Validate() error {
	if !(o.SlowFactor > 1) || math.IsInf(o.SlowFactor, 0) { // also rejects NaN
		return errorf("SlowFactor %v: want a number above 1 (a DataNode is slow when its p99 is more than this many times the others')", o.SlowFactor)
	}
	if o.MinCalls < 1 {
		return errorf("MinCalls %d: want 1 or more", o.MinCalls)
	}
	return nil
}

// Verdict is the outcome of Judge.
type Verdict struct {
	// Judged counts the DataNodes with at least MinCalls calls.
	Judged int
	// Slow lists the slow DataNodes in the order they were given.
	Slow []Slow
	// MinCalls and SlowFactor are the options the verdict was made with, for Lines.
	MinCalls   int64
	SlowFactor float64
}

// Slow is one DataNode judged slow, with the medians of the other judged DataNodes it was
// compared with.
type Slow struct {
	DataNode DataNode
	// Others counts the other judged DataNodes.
	Others int
	// OthersP50 and OthersP99 are the medians of their p50s and p99s.
	OthersP50, OthersP99 time.Duration
	// OthersRTT and OthersTime are the medians of their RTT p50s and DataNode times, over those
	// with network figures; OthersHaveRTT is false when none has any.
	OthersRTT, OthersTime time.Duration
	OthersHaveRTT         bool
}

// Judge compares each DataNode with at least MinCalls calls against the median of the other such
// DataNodes: it is slow when its p99 is more than SlowFactor times their median p99. Fewer than
// two judged DataNodes give no verdict (Judged says how many there were). opts must be valid.
func Judge(dns []DataNode, opts Options) Verdict {
	var judged []DataNode
	for _, d := range dns {
		if d.Calls >= opts.MinCalls {
			judged = append(judged, d)
		}
	}
	v := Verdict{Judged: len(judged), MinCalls: opts.MinCalls, SlowFactor: opts.SlowFactor}
	if len(judged) < 2 {
		return v
	}
	for i, d := range judged {
		others := slices.Concat(judged[:i], judged[i+1:])
		p99 := median(others, func(o DataNode) time.Duration { return o.P99 })
		if p99 <= 0 || float64(d.P99) <= opts.SlowFactor*float64(p99) {
			continue
		}
		s := Slow{DataNode: d, Others: len(others), OthersP99: p99,
			OthersP50: median(others, func(o DataNode) time.Duration { return o.P50 })}
		var withRTT []DataNode
		for _, o := range others {
			if o.HasRTT {
				withRTT = append(withRTT, o)
			}
		}
		if len(withRTT) > 0 {
			s.OthersHaveRTT = true
			s.OthersRTT = median(withRTT, func(o DataNode) time.Duration { return o.RTT })
			s.OthersTime = median(withRTT, DataNode.DataNodeTime)
		}
		v.Slow = append(v.Slow, s)
	}
	return v
}

// median is the median of f over dns (the mean of the middle two for an even count); dns is not
// empty.
func median(dns []DataNode, f func(DataNode) time.Duration) time.Duration {
	xs := make([]time.Duration, len(dns))
	for i, d := range dns {
		xs[i] = f(d)
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return xs[n/2-1] + (xs[n/2]-xs[n/2-1])/2
}

// Line is the verdict's line for the DataNode, in exactly this form:
//
//	SLOW DATANODE 6c0e… (10.0.0.12:9859): p99 12.3 ms vs 2.1 ms for the other 2
func (s Slow) Line() string {
	return fmt.Sprintf("SLOW DATANODE %s: p99 %s ms vs %s ms for the other %d",
		s.DataNode.Name(), Millis(s.DataNode.P99), Millis(s.OthersP99), s.Others)
}

// tailShare is the least part of a slow DataNode's p99 excess that the larger of its two p50
// excesses (network RTT, DataNode time) must make up for Cause to name it. Below it the p50s
// barely differ from the others' and say nothing about where the tail comes from: a DataNode
// paused now and then (a long GC, SIGSTOP) answers most calls at once and a few very late, and
// the delayed ACKs of the late ones nudge its RTT p50 up by a fraction of a millisecond, which
// alone would blame the network for a tail of tens of milliseconds.
const tailShare = 0.1

// Cause says whether the DataNode's network RTT or its DataNode time is what is high: the one
// whose excess over the others' median is larger. When neither is above the others', or the
// larger is under tailShare of the p99 excess, only its tail is slow.
func (s Slow) Cause() string {
	d := s.DataNode
	if !d.HasRTT || !s.OthersHaveRTT {
		return fmt.Sprintf("  p50 %s ms vs %s ms; no network figures (TCP_INFO) to tell its network from its DataNode time",
			Millis(d.P50), Millis(s.OthersP50))
	}
	rttExcess, timeExcess := d.RTT-s.OthersRTT, d.DataNodeTime()-s.OthersTime
	figures := fmt.Sprintf("network RTT p50 %s ms vs %s ms, DataNode time %s ms vs %s ms",
		Millis(d.RTT), Millis(s.OthersRTT), Millis(d.DataNodeTime()), Millis(s.OthersTime))
	switch {
	case rttExcess <= 0 && timeExcess <= 0:
		return "  only its tail is slow: neither its network RTT nor its DataNode time is above the others' (" + figures + ")"
	case float64(max(rttExcess, timeExcess)) < tailShare*float64(d.P99-s.OthersP99):
		return "  only its tail is slow: its network RTT and DataNode time at p50 are near the others' (" + figures + ")"
	case rttExcess >= timeExcess:
		return "  its network RTT is what is high: " + figures
	}
	return "  its DataNode time is what is high: " + figures
}

// Lines are the verdict as the reports show it: for each slow DataNode its Line and Cause; else
// one line saying that none is slow, or that fewer than two DataNodes had enough calls to be
// compared.
func (v Verdict) Lines() []string {
	if v.Judged < 2 {
		return []string{fmt.Sprintf("No slow-DataNode verdict: it needs two DataNodes with at least %d calls, there were %d "+
			"(target all spreads the calls over every DataNode)", v.MinCalls, v.Judged)}
	}
	if len(v.Slow) == 0 {
		return []string{fmt.Sprintf("No slow DataNode: the p99 of each of the %d DataNodes with at least %d calls is within %s× the others' median",
			v.Judged, v.MinCalls, strconv.FormatFloat(v.SlowFactor, 'g', -1, 64))}
	}
	var out []string
	for _, s := range v.Slow {
		out = append(out, s.Line(), s.Cause())
	}
	return out
}
