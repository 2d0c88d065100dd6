package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTrendExact(t *testing.T) {
	tr := NewTrendSink(Time)
	if tr.Percentile(95) != 0 || tr.Avg() != 0 || tr.Min() != 0 || !tr.IsEmpty() {
		t.Fatal("empty trend must give 0 for everything")
	}
	for _, v := range []float64{5, 1, 4, 2, 3} {
		tr.Add(Sample{Value: v})
	}
	for _, tc := range []struct {
		p, want float64
	}{{0, 1}, {50, 3}, {90, 4.6}, {95, 4.8}, {100, 5}, {-3, 1}, {400, 5}, {math.NaN(), 1}} {
		if got := tr.Percentile(tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("p(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if tr.Avg() != 3 || tr.Count() != 5 || tr.Sum() != 15 || tr.Med() != 3 || !tr.Exact() {
		t.Errorf("avg %v count %d sum %v med %v", tr.Avg(), tr.Count(), tr.Sum(), tr.Med())
	}
	one := NewTrendSink(Default)
	one.Add(Sample{Value: -7})
	if one.Percentile(99) != -7 || one.Min() != -7 {
		t.Errorf("single negative value: p(99) %v", one.Percentile(99))
	}
}

func TestTrendHistogramAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr := NewTrendSink(Time)
	vals := make([]float64, 200_000)
	for i := range vals {
		vals[i] = math.Exp(rng.NormFloat64()*1.5) * 0.8 // ms, lognormal around 0.8 ms
		tr.Add(Sample{Value: vals[i]})
	}
	if tr.Exact() {
		t.Fatal("still exact after 200k samples")
	}
	slices.Sort(vals)
	for _, p := range []float64{0, 1, 10, 50, 90, 95, 99, 99.9, 99.99, 100} {
		want := interpolate(vals, p)
		got := tr.Percentile(p)
		if rel := math.Abs(got-want) / want; rel > 0.001 {
			t.Errorf("p(%v) = %v, exact %v: relative error %.5f > 0.1%%", p, got, want, rel)
		}
	}
	if tr.Min() != vals[0] || tr.Max() != vals[len(vals)-1] {
		t.Error("min/max not exact")
	}
	c := tr.Clone().(*TrendSink)
	tr.Add(Sample{Value: 1e9}) // clamped: 1e9 ms > 1 h
	if tr.Clamped() != 1 || c.Clamped() != 0 || c.Count() != int64(len(vals)) {
		t.Errorf("clamped %d, clone clamped %d count %d", tr.Clamped(), c.Clamped(), c.Count())
	}
	if tr.Max() != 1e9 {
		t.Errorf("max %v, want the true value", tr.Max())
	}
}

func TestTrendStats(t *testing.T) {
	tr := NewTrendSink(Time)
	for i := 1; i <= 10; i++ {
		tr.Add(Sample{Value: float64(i)})
	}
	for _, tc := range []struct {
		in   string
		want float64
	}{{"avg", 5.5}, {"min", 1}, {"med", 5.5}, {"max", 10}, {"count", 10}, {"p(90)", 9.1}, {" p( 50 ) ", 5.5}, {"p(0)", 1}, {"p(100)", 10}} {
		s, err := ParseTrendStat(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := s.Value(tr); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%q = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "mean", "p90", "p()", "p(x)", "p(-1)", "p(100.1)", "p(NaN)", "P(90)"} {
		if _, err := ParseTrendStat(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s, _ := ParseTrendStat("count")
	if !s.IsCount() || s.String() != "count" {
		t.Error("count stat")
	}
}

func TestTrendZeroValue(t *testing.T) {
	var tr TrendSink
	for i := 0; i < TrendExactSamples+10; i++ {
		tr.Add(Sample{Value: 2.5})
	}
	if tr.Exact() || tr.Percentile(50) != 2.5 || tr.Avg() != 2.5 {
		t.Errorf("zero-value sink: exact %v p50 %v", tr.Exact(), tr.Percentile(50))
	}
}

// interpolate is k6's percentile over sorted values, the reference the histogram is held to.
func interpolate(sorted []float64, p float64) float64 {
	pos := p / 100 * float64(len(sorted)-1)
	lo := math.Floor(pos)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-lo)*(sorted[i+1]-sorted[i])
}
