package freon

import (
	"math"

	"github.com/dnecho/dnecho/internal/quantile"
)

// LatencyStats summarises every timed task of a run, in nanoseconds.
//
// These are whole-run statistics, not Dropwizard's: freon's timer keeps an exponentially
// decaying reservoir of 1028 samples biased to the last ~5 minutes, so its min, max and
// percentiles are approximate and recent-biased. Here min, max, mean and stddev are always
// exact; the percentiles are exact too, computed with Dropwizard's own definition for a
// complete sample set (UniformSnapshot: linear interpolation at rank q·(n+1)), unless the
// run recorded more samples than the exact-sample cap, in which case they come from an HDR
// histogram with 3 significant digits (Exact is false and the report says so).
type LatencyStats struct {
	Count                            int64
	Min, Max                         int64
	Mean, StdDev                     float64 // StdDev is the sample deviation (n−1), as Dropwizard's
	Median, P75, P95, P98, P99, P999 float64
	Exact                            bool
}

// reportQuantiles are the percentiles both report formats print, in order.
var reportQuantiles = []float64{0.5, 0.75, 0.95, 0.98, 0.99, 0.999}

// moments is a mergeable running count, sum, min, max and Welford second moment.
type moments struct {
	n, sum, min, max int64
	mean, m2         float64
}

func (m *moments) add(x int64) {
	if m.n == 0 || x < m.min {
		m.min = x
	}
	if m.n == 0 || x > m.max {
		m.max = x
	}
	m.n++
	m.sum += x
	d := float64(x) - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (float64(x) - m.mean)
}

// merge combines two sets of moments (Chan et al.'s parallel variance formula).
func (m *moments) merge(o moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 {
		*m = o
		return
	}
	n := m.n + o.n
	d := o.mean - m.mean
	m.m2 += o.m2 + d*d*float64(m.n)*float64(o.n)/float64(n)
	m.mean += d * float64(o.n) / float64(n)
	m.min, m.max = min(m.min, o.min), max(m.max, o.max)
	m.n, m.sum = n, m.sum+o.sum
}

func (m moments) stats() LatencyStats {
	s := LatencyStats{Count: m.n, Min: m.min, Max: m.max}
	if m.n > 0 {
		s.Mean = float64(m.sum) / float64(m.n)
	}
	if m.n > 1 {
		s.StdDev = math.Sqrt(m.m2 / float64(m.n-1))
	}
	return s
}

func (s *LatencyStats) setQuantiles(q []float64) {
	s.Median, s.P75, s.P95, s.P98, s.P99, s.P999 = q[0], q[1], q[2], q[3], q[4], q[5]
}

// dropwizardQuantiles computes the report percentiles with Dropwizard's rule over the merged
// store: exact when every latency was kept, bucket midpoints otherwise.
func dropwizardQuantiles(u *quantile.Union) []float64 {
	out := make([]float64, len(reportQuantiles))
	for i, q := range reportQuantiles {
		out[i] = uniformQuantile(q, u.Count(), u.Rank)
	}
	return out
}

// uniformQuantile is Dropwizard's UniformSnapshot.getValue: position q·(n+1), 1-based,
// linearly interpolated between its neighbours and clamped to the first and last sample
// (rank is 1-based).
func uniformQuantile(q float64, n int64, rank func(r int64) float64) float64 {
	if n == 0 {
		return 0
	}
	pos := q * float64(n+1)
	idx := int64(pos)
	if idx < 1 {
		return rank(1)
	}
	if idx >= n {
		return rank(n)
	}
	lower, upper := rank(idx), rank(idx+1)
	return lower + (pos-math.Floor(pos))*(upper-lower)
}

// histDigits is the precision of the histogram behind approximate percentiles.
const histDigits = 3
