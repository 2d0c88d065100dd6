package plan

import (
	"fmt"
	"math/big"
	"strings"
)

// Segment is the part (From, To] of the whole test that one instance runs, 0 ≤ From < To ≤ 1
// (grafana/k6 lib/execution_segment.go). The zero value is not valid; use ParseSegment.
type Segment struct {
	From, To *big.Rat
}

// fullSegment is 0:1, the whole test.
func fullSegment() Segment { return Segment{From: new(big.Rat), To: big.NewRat(1, 1)} }

// NewSegment checks 0 ≤ from < to ≤ 1, with k6's messages (grafana/k6
// lib/execution_segment.go, NewExecutionSegment).
func NewSegment(from, to *big.Rat) (Segment, error) {
	switch {
	case from.Sign() < 0:
		return Segment{}, fmt.Errorf("segment start value must be at least 0 but was %s", from.FloatString(2))
	case from.Cmp(to) >= 0:
		return Segment{}, fmt.Errorf("segment start(%s) must be less than its end(%s)", from.FloatString(2), to.FloatString(2))
	case to.Cmp(big.NewRat(1, 1)) > 0:
		return Segment{}, fmt.Errorf("segment end value can't be more than 1 but was %s", to.FloatString(2))
	}
	return Segment{From: from, To: to}, nil
}

// ParseSegment parses `--execution-segment` as k6 does: "from:to", or a single "to" meaning
// "0:to", or "" meaning the whole test. Each bound is a fraction (1/4, also unreduced such as
// 2/4), a decimal (0.25) or an integer percentage (25%).
func ParseSegment(s string) (Segment, error) {
	if s == "" {
		return fullSegment(), nil
	}
	from := new(big.Rat)
	toStr := s
	if fromStr, rest, found := strings.Cut(s, ":"); found {
		var err error
		if from, err = parseRatio(fromStr); err != nil {
			return Segment{}, err
		}
		toStr = rest
	}
	to, err := parseRatio(toStr)
	if err != nil {
		return Segment{}, err
	}
	return NewSegment(from, to)
}

// Length is To − From.
func (s Segment) Length() *big.Rat { return new(big.Rat).Sub(s.To, s.From) }

// String formats the segment as "from:to" with exact fractions.
func (s Segment) String() string { return s.From.RatString() + ":" + s.To.RatString() }

// Equal reports whether both segments have the same bounds.
func (s Segment) Equal(o Segment) bool { return s.From.Cmp(o.From) == 0 && s.To.Cmp(o.To) == 0 }

// SegmentSequence is the list of points r1 < … < rn cutting 0..1 into the segments of all
// instances.
type SegmentSequence []*big.Rat

// ParseSegmentSequence parses `--execution-segment-sequence` ("0,1/4,2/4,3/4,1") as k6 does:
// at least 2 points, each pair of neighbours a valid segment. It does not fill the gaps to 0 and
// 1: NewExecutionTuple does, after the options are checked against the sequence as written.
func ParseSegmentSequence(s string) (SegmentSequence, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 {
		return nil, fmt.Errorf("at least 2 points are needed for an execution segment sequence, %d given", len(parts))
	}
	seq := make(SegmentSequence, 0, len(parts))
	for _, p := range parts {
		r, err := parseRatio(p)
		if err != nil {
			return nil, err
		}
		if len(seq) > 0 {
			if _, err := NewSegment(seq[len(seq)-1], r); err != nil {
				return nil, err
			}
		}
		seq = append(seq, r)
	}
	return seq, nil
}

// Contains reports whether seg is one of the sequence's segments, as written (without the
// gaps filled).
func (q SegmentSequence) Contains(seg Segment) bool {
	for i := 0; i+1 < len(q); i++ {
		if q[i].Cmp(seg.From) == 0 && q[i+1].Cmp(seg.To) == 0 {
			return true
		}
	}
	return false
}

// filled returns the sequence with 0 prepended and 1 appended when missing.
func (q SegmentSequence) filled() SegmentSequence {
	out := q[:len(q):len(q)] // appending must not write into the caller's array
	if out[0].Sign() != 0 {
		out = append(SegmentSequence{new(big.Rat)}, out...)
	}
	if out[len(out)-1].Cmp(big.NewRat(1, 1)) != 0 {
		out = append(out, big.NewRat(1, 1))
	}
	return out
}

// String formats the sequence as comma-separated exact fractions.
func (q SegmentSequence) String() string {
	parts := make([]string, len(q))
	for i, r := range q {
		parts[i] = r.RatString()
	}
	return strings.Join(parts, ",")
}

// parseRatio parses one bound as k6's stringToRat does: an integer percentage ("25%"), or
// anything math/big reads as a rational ("1/4", "2/4", "0.25"). The range is checked by
// NewSegment.
func parseRatio(s string) (*big.Rat, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		n, ok := new(big.Int).SetString(pct, 10)
		if !ok {
			return nil, fmt.Errorf("'%s' is not a valid percentage", s)
		}
		return new(big.Rat).SetFrac(n, big.NewInt(100)), nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("'%s' is not a valid percentage, decimal, fraction or interval value", s)
	}
	return r, nil
}
