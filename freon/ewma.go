package freon

import (
	"math"
	"time"
)

// tickInterval is how often Dropwizard's meter advances its moving averages.
const tickInterval = 5 * time.Second

// tickNanos and nanosPerSecond are the doubles Dropwizard divides and multiplies by; keeping
// Java's operation order makes our rates bit-identical to a JVM's for the same counts.
const (
	tickNanos      = float64(tickInterval)
	nanosPerSecond = float64(time.Second)
)

// ewma is Dropwizard metrics-core 3.2.6's exponentially weighted moving average
// (com.codahale.metrics.EWMA), the source of the 1/5/15-minute rates: every tick feeds the
// events counted since the previous tick; the first tick sets the rate outright.
type ewma struct {
	alpha       float64
	rate        float64 // events per nanosecond, as Dropwizard stores it
	initialized bool
}

// newEWMA returns the average for a window of the given minutes (1, 5 or 15 in the report):
// alpha = 1 − exp(−5 s / 60 s / minutes).
func newEWMA(minutes int) *ewma {
	// Evaluated at run time in this order, as Java does: a Go constant expression would be
	// rounded once instead of at each step and could differ in the last bit.
	interval, perMinute := 5.0, 60.0
	return &ewma{alpha: 1 - math.Exp(-interval/perMinute/float64(minutes))}
}

// tick feeds the number of events seen during one TickInterval.
func (e *ewma) tick(count int64) {
	instant := float64(count) / tickNanos
	if e.initialized {
		e.rate += e.alpha * (instant - e.rate)
		return
	}
	e.rate = instant
	e.initialized = true
}

// currentRate returns the average in events per second.
func (e *ewma) currentRate() float64 {
	return e.rate * nanosPerSecond
}

// rateSet holds a meter's rates in events per second.
type rateSet struct {
	Mean, OneMinute, FiveMinute, FifteenMinute float64
}

// meterRates computes what Dropwizard's Meter reports at elapsed time since its creation,
// given how many events completed in each tick interval (perTick[k] counts completions
// in [k·5s, (k+1)·5s)).
//
// Dropwizard ticks lazily: a mark first performs the ticks that are due, then counts the
// event towards the next one; reading a rate performs the due ticks. So at elapsed the
// averages have seen exactly the intervals that ended (a tick is due once more than 5 s
// passed), and events of the current, unfinished interval are not in them. A run shorter
// than 5 s therefore reports 0 for all three.
func meterRates(perTick []int64, count int64, elapsed time.Duration) rateSet {
	var r rateSet
	if count > 0 && elapsed > 0 {
		r.Mean = float64(count) / float64(elapsed) * nanosPerSecond
	}
	ticks := 0
	if elapsed > tickInterval {
		ticks = int(elapsed / tickInterval)
	}
	m1, m5, m15 := newEWMA(1), newEWMA(5), newEWMA(15)
	for k := range ticks {
		var c int64
		if k < len(perTick) {
			c = perTick[k]
		}
		m1.tick(c)
		m5.tick(c)
		m15.tick(c)
	}
	r.OneMinute, r.FiveMinute, r.FifteenMinute = m1.currentRate(), m5.currentRate(), m15.currentRate()
	return r
}
