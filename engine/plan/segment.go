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

// ParseSegment parses `--execution-segment`: "from:to" or a single "to" meaning "0:to". Each
// bound is a fraction (1/4), a decimal (0.25) or a percentage (25%).
func ParseSegment(s string) (Segment, error) {
	fromStr, toStr, found := strings.Cut(strings.TrimSpace(s), ":")
	if !found {
		fromStr, toStr = "0", fromStr
	}
	from, err := parseRatio(fromStr)
	if err != nil {
		return Segment{}, fmt.Errorf("execution segment %q: start: %w", s, err)
	}
	to, err := parseRatio(toStr)
	if err != nil {
		return Segment{}, fmt.Errorf("execution segment %q: end: %w", s, err)
	}
	if from.Cmp(to) >= 0 {
		return Segment{}, fmt.Errorf("execution segment %q: the start must be less than the end", s)
	}
	return Segment{From: from, To: to}, nil
}

// Length is To − From.
func (s Segment) Length() *big.Rat { return new(big.Rat).Sub(s.To, s.From) }

// String formats the segment as "from:to" with exact fractions.
func (s Segment) String() string { return s.From.RatString() + ":" + s.To.RatString() }

// SegmentSequence is the list of points r1 < … < rn cutting 0..1 into the segments of all
// instances.
type SegmentSequence []*big.Rat

// ParseSegmentSequence parses `--execution-segment-sequence` ("0,1/4,1/2,3/4,1"). Points must be
// strictly increasing within 0..1; 0 and 1 are added when missing so the segments cover 0..1.
func ParseSegmentSequence(s string) (SegmentSequence, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 {
		return nil, fmt.Errorf("execution segment sequence %q: at least 2 points are needed", s)
	}
	seq := make(SegmentSequence, 0, len(parts)+2)
	for i, p := range parts {
		r, err := parseRatio(p)
		if err != nil {
			return nil, fmt.Errorf("execution segment sequence %q: point %d: %w", s, i+1, err)
		}
		if len(seq) > 0 && seq[len(seq)-1].Cmp(r) >= 0 {
			return nil, fmt.Errorf("execution segment sequence %q: points must be strictly increasing", s)
		}
		seq = append(seq, r)
	}
	return seq.filled(), nil
}

// filled returns the sequence with 0 prepended and 1 appended when missing.
func (q SegmentSequence) filled() SegmentSequence {
	out := q
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

// parseRatio parses one bound: "1/4", "0.25" or "25%", which must lie within 0..1.
func parseRatio(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	r := new(big.Rat)
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		if _, ok := r.SetString(strings.TrimSpace(pct)); !ok {
			return nil, fmt.Errorf("%q is not a percentage", s)
		}
		r.Quo(r, big.NewRat(100, 1))
	} else if _, ok := r.SetString(s); !ok {
		return nil, fmt.Errorf("%q is not a fraction, decimal or percentage", s)
	}
	if r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return nil, fmt.Errorf("%q is outside 0..1", s)
	}
	return r, nil
}
