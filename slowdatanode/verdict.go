package slowdatanode

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Verdict defaults (docs/slow-datanode.md).
const (
	// DefaultMinAttempts is how many attempts a DataNode needs to be judged or to count among the
	// others: below it a p99 is one or two attempts' worth of luck.
	DefaultMinAttempts = 100
	// DefaultSlowFactor is how many times the others' median p50 (or p99) a DataNode's p50 (or
	// p99) must exceed to be named slow.
	DefaultSlowFactor = 2.0
	// DefaultMinExcess is the least a DataNode's percentile must exceed the others' median by
	// to be named slow, whatever the factor: see docs/slow-datanode.md for the measurements it
	// comes from.
	DefaultMinExcess = time.Millisecond
)

// RuleHelp is the rule in the words of the --slow-factor help, after "when": the factor is
// "this many times".
var RuleHelp = fmt.Sprintf("its p50 or its p99 is more than this many times the others' median of the same\n"+
	"percentile (DataNodes with at least %d attempts each) and %s ms or more above it; a p99 also needs more of\n"+
	"its attempts above that bar than the others' (docs/slow-datanode.md)", DefaultMinAttempts, Millis(DefaultMinExcess))

// Options are the verdict's parameters. Start from DefaultOptions.
type Options struct {
	// MinAttempts is the fewest attempts a DataNode needs to take part in the verdict.
	MinAttempts int64
	// SlowFactor: a DataNode is slow when its p50 or its p99 is more than SlowFactor × the
	// median of the same percentile over the other judged DataNodes.
	SlowFactor float64
	// MinExcess: a percentile that exceeds the others' median by less than this never makes a
	// DataNode slow, so that sub-millisecond noise is not a verdict.
	MinExcess time.Duration
}

// DefaultOptions returns DefaultMinAttempts, DefaultSlowFactor and DefaultMinExcess.
func DefaultOptions() Options {
	return Options{MinAttempts: DefaultMinAttempts, SlowFactor: DefaultSlowFactor, MinExcess: DefaultMinExcess}
}

// Validate checks the options; the error names the field and the allowed values.
func (o Options) Validate() error {
	if !(o.SlowFactor > 1) || math.IsInf(o.SlowFactor, 0) { // also rejects NaN
		return errorf("SlowFactor %v: want a number above 1 (a DataNode is slow when its p50 or p99 is more than this many times the others')", o.SlowFactor)
	}
	if o.MinAttempts < 1 {
		return errorf("MinAttempts %d: want 1 or more", o.MinAttempts)
	}
	if o.MinExcess < 0 {
		return errorf("MinExcess %s: want 0 or more", o.MinExcess)
	}
	return nil
}

// Verdict is the outcome of Judge.
type Verdict struct {
	// Judged counts the DataNodes (rows) with at least MinAttempts attempts, Compared those of
	// them with another of their mode to be compared with.
	Judged, Compared int
	// Spread says that some mode's attempts went to more than one DataNode.
	Spread bool
	// Slow lists the slow DataNodes in the order they were given.
	Slow []Slow
	// Options are those the verdict was made with, for Lines.
	Options Options
}

// Percentile names the percentile that made a DataNode slow.
type Percentile string

// The percentiles the verdict judges.
const (
	P50 Percentile = "p50"
	P99 Percentile = "p99"
)

// Slow is one DataNode judged slow, with the medians of the other judged DataNodes it was
// compared with.
type Slow struct {
	DataNode DataNode
	// By is the percentile that made it slow: P50 when its p50 did (whatever its p99), else P99.
	By Percentile
	// Others counts the other judged DataNodes.
	Others int
	// OthersP50 and OthersP99 are the medians of their p50s and p99s.
	OthersP50, OthersP99 time.Duration
	// With By P99: Bar is SlowFactor × OthersP99, and Share and OthersShare the shares of its
	// attempts and of the others' (pooled) above it.
	Bar                time.Duration
	Share, OthersShare float64
	// OthersRTT and OthersTime are the medians of their RTT p50s and DataNode times, over those
	// with network figures; OthersHaveRTT is false when none has any.
	OthersRTT, OthersTime time.Duration
	OthersHaveRTT         bool
}

// Judge compares each DataNode with at least MinAttempts attempts against the median of the
// other such DataNodes of its mode (a row's DataNode.Mode: a gRPC echo and a Raft write are not
// alike): it is slow when its p50 is more than SlowFactor times their median p50, or its p99 more
// than SlowFactor times their median p99 (the bar) and the share of its attempts above the bar
// clearly larger than theirs (tailShares), by at least MinExcess either way. A mode with fewer
// than two judged DataNodes gives no verdict (Judged says how many there were in all). opts must
// be valid.
func Judge(dns []DataNode, opts Options) Verdict {
	v := Verdict{Options: opts}
	byMode := map[string][]DataNode{}
	var modes []string
	reached := map[string]int{}
	for _, d := range dns {
		if d.Attempts > 0 {
			reached[d.Mode]++
			v.Spread = v.Spread || reached[d.Mode] > 1
		}
		if d.Attempts < opts.MinAttempts {
			continue
		}
		if _, ok := byMode[d.Mode]; !ok {
			modes = append(modes, d.Mode)
		}
		byMode[d.Mode] = append(byMode[d.Mode], d)
		v.Judged++
	}
	for _, m := range modes {
		if judged := byMode[m]; len(judged) >= 2 {
			v.Compared += len(judged)
			v.Slow = append(v.Slow, judge(judged, opts)...)
		}
	}
	return v
}

// judge compares the judged DataNodes of one mode with each other.
func judge(judged []DataNode, opts Options) []Slow {
	var slow []Slow
	for i, d := range judged {
		others := slices.Concat(judged[:i], judged[i+1:])
		s := Slow{DataNode: d, Others: len(others),
			OthersP50: median(others, func(o DataNode) time.Duration { return o.P50 }),
			OthersP99: median(others, func(o DataNode) time.Duration { return o.P99 })}
		if opts.exceeds(d.P50, s.OthersP50) {
			s.By = P50
		} else if opts.exceeds(d.P99, s.OthersP99) {
			var tail bool
			s.Bar = time.Duration(opts.SlowFactor * float64(s.OthersP99))
			if s.Share, s.OthersShare, tail = tailShares(d, others, s.Bar); !tail {
				continue
			}
			s.By = P99
		} else {
			continue
		}
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
		slow = append(slow, s)
	}
	return slow
}

// exceeds reports whether a DataNode's percentile p is slow against the others' median m: more
// than SlowFactor times it, and above it by at least MinExcess.
func (o Options) exceeds(p, m time.Duration) bool {
	return m > 0 && float64(p) > o.SlowFactor*float64(m) && p-m >= o.MinExcess
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

// Line is the verdict's line for the DataNode, in exactly this form, the percentile that made it
// slow first and the other in brackets:
//
//	SLOW DATANODE 6c0e… (10.0.0.12:9859): p50 44.7 ms vs 9.05 ms for the other 2 (p99 71.7 vs 40.8)
//	SLOW DATANODE 6c0e… (10.0.0.12:9859): p99 52.9 ms vs 7.35 ms for the other 2 (p50 1.31 vs 1.23; 3.1% of its attempts above 14.7 ms, 0.2% of theirs)
func (s Slow) Line() string {
	d := s.DataNode
	by, mine, theirs, other, otherMine, otherTheirs := P50, d.P50, s.OthersP50, P99, d.P99, s.OthersP99
	if s.By == P99 {
		by, mine, theirs, other, otherMine, otherTheirs = P99, d.P99, s.OthersP99, P50, d.P50, s.OthersP50
	}
	tail := ""
	if s.By == P99 {
		tail = fmt.Sprintf("; %s of its attempts above %s ms, %s of theirs", percent(s.Share), Millis(s.Bar), percent(s.OthersShare))
	}
	return fmt.Sprintf("SLOW DATANODE %s: %s %s ms vs %s ms for the other %d (%s %s vs %s%s)",
		d.Name(), by, Millis(mine), Millis(theirs), s.Others, other, Millis(otherMine), Millis(otherTheirs), tail)
}

// percent formats a share as a percentage: whole from 10% ("12%"), else two significant digits
// ("3.1%", "0.25%", "0%").
func percent(f float64) string {
	if v := 100 * f; v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64) + "%"
	}
	return strconv.FormatFloat(100*f, 'g', 2, 64) + "%"
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
// larger is under tailShare of the excess of the percentile that made it slow, only its tail is
// slow.
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
	case float64(max(rttExcess, timeExcess)) < tailShare*float64(s.excess()):
		return "  only its tail is slow: its network RTT and DataNode time at p50 are near the others' (" + figures + ")"
	case rttExcess >= timeExcess:
		return "  its network RTT is what is high: " + figures
	}
	return "  its DataNode time is what is high: " + figures
}

// excess is how far the percentile that made the DataNode slow is above the others' median.
func (s Slow) excess() time.Duration {
	if s.By == P50 {
		return s.DataNode.P50 - s.OthersP50
	}
	return s.DataNode.P99 - s.OthersP99
}

// Lines are the verdict as the reports show it: for each slow DataNode its Line and Cause; else
// one line saying that none is slow, or that the attempts went to several DataNodes but none had
// enough to be compared. A run that judged no two DataNodes of a mode otherwise has nothing to
// say (no lines): one that called one DataNode (Java's first member, the default target), or whose
// retries left the others a few attempts.
func (v Verdict) Lines() []string {
	o := v.Options
	switch {
	case v.Compared == 0 && v.Spread && v.Judged == 0:
		return []string{fmt.Sprintf("No slow-DataNode verdict: it needs two DataNodes with at least %d attempts, there were %d",
			o.MinAttempts, v.Judged)}
	case v.Compared == 0:
		return nil
	case len(v.Slow) == 0:
		return []string{fmt.Sprintf("No slow DataNode: the p50 and p99 of each of the %d DataNodes with at least %d attempts are within %s× the others' median or less than %s ms above it",
			v.Compared, o.MinAttempts, strconv.FormatFloat(o.SlowFactor, 'g', -1, 64), Millis(o.MinExcess))}
	}
	var out []string
	for _, s := range v.Slow {
		out = append(out, s.Line(), s.Cause())
	}
	return out
}
