package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// TrendStat is one statistic of a Trend as named in summaryTrendStats: avg, min, med, max, count
// or p(N).
type TrendStat struct {
	text string // as written (trimmed): also the key in summary values
	name string // avg, min, med, max, count or p
	p    float64
}

// DefaultTrendStats is k6's default summaryTrendStats.
func DefaultTrendStats() []string {
	return []string{"avg", "min", "med", "max", "p(90)", "p(95)"}
}

// ParseTrendStat parses a summaryTrendStats entry.
func ParseTrendStat(s string) (TrendStat, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "avg", "min", "med", "max", "count":
		return TrendStat{text: s, name: s}, nil
	}
	p, isP, err := ParsePercentile(s)
	if err != nil {
		return TrendStat{}, err
	}
	if !isP {
		return TrendStat{}, fmt.Errorf("invalid trend stat %q: use avg, min, med, max, count or p(N) with 0 <= N <= 100", s)
	}
	return TrendStat{text: s, name: "p", p: p}, nil
}

// ParsePercentile recognises "p(N)". isP is false when s does not have that shape; err is set
// when it does but N is not a number in [0, 100].
func ParsePercentile(s string) (p float64, isP bool, err error) {
	if !strings.HasPrefix(s, "p(") || !strings.HasSuffix(s, ")") {
		return 0, false, nil
	}
	inner := strings.TrimSpace(s[2 : len(s)-1])
	p, err = strconv.ParseFloat(inner, 64)
	if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
		return 0, true, fmt.Errorf("invalid percentile %q: N in p(N) must be a number between 0 and 100", s)
	}
	return p, true, nil
}

// String returns the stat as written.
func (s TrendStat) String() string { return s.text }

// Value computes the stat on t. count is returned as a float like every other stat.
func (s TrendStat) Value(t *TrendSink) float64 {
	switch s.name {
	case "avg":
		return t.Avg()
	case "min":
		return t.Min()
	case "med":
		return t.Med()
	case "max":
		return t.Max()
	case "count":
		return float64(t.Count())
	case "p":
		return t.Percentile(s.p)
	}
	return 0
}

// IsCount reports whether the stat is count (printed as a raw integer in the text summary).
func (s TrendStat) IsCount() bool { return s.name == "count" }
