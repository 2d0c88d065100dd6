package plan

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
)

// maxStripingWork bounds cycle length × segment count, so a pathological sequence (lengths with
// huge coprime denominators) is rejected instead of exhausting memory.
const maxStripingWork = 50_000_000

// ExecutionTuple is one instance's segment within the full segment sequence. It splits integer
// values (VUs, iterations) and global iteration numbers between instances deterministically, so
// that all instances together do exactly what a single instance would (grafana/k6
// lib/execution_segment.go, ExecutionTuple and its striping algorithm).
//
// A nil *ExecutionTuple means the whole test on one instance: Scale and Global are identities.
type ExecutionTuple struct {
	Segment  Segment
	Sequence SegmentSequence
	index    int       // position of Segment in Sequence
	cycle    int64     // L: every L consecutive indexes are shared out the same way
	shares   []int64   // m_s: how many of every L indexes segment s owns (sequence order)
	owned    [][]int64 // for each segment, the cycle indexes it owns, ascending
}

// NewExecutionTuple builds the tuple for seg within seq. A nil seg means 0:1; a nil seq means the
// sequence made of 0, seg's bounds and 1. The segment must be one of the sequence's segments.
func NewExecutionTuple(seg *Segment, seq SegmentSequence) (*ExecutionTuple, error) {
	s := fullSegment()
	if seg != nil {
		if seg.From == nil || seg.To == nil || seg.From.Cmp(seg.To) >= 0 {
			return nil, errors.New("invalid execution segment")
		}
		s = *seg
	}
	if len(seq) == 0 {
		seq = SegmentSequence{s.From, s.To}
	}
	seq = seq.filled()
	index := -1
	for i := 0; i+1 < len(seq); i++ {
		if seq[i].Cmp(s.From) == 0 && seq[i+1].Cmp(s.To) == 0 {
			index = i
			break
		}
	}
	if index < 0 {
		return nil, fmt.Errorf("couldn't find segment %s in sequence %s", s, seq)
	}
	et := &ExecutionTuple{Segment: s, Sequence: seq, index: index}
	if err := et.stripe(); err != nil {
		return nil, err
	}
	return et, nil
}

// ParseExecutionTuple builds the tuple from the text of k6's --execution-segment and
// --execution-segment-sequence options (see ParseSegment, ParseSegmentSequence); an empty
// segment is the whole test, an empty sequence the one the segment implies. As in k6 (grafana/k6
// lib/options.go, Validate), a sequence must list the segment among its own segments, before
// the gaps to 0 and 1 are filled.
func ParseExecutionTuple(segment, sequence string) (*ExecutionTuple, error) {
	seg, err := ParseSegment(segment)
	if err != nil {
		return nil, err
	}
	var seq SegmentSequence
	if sequence != "" {
		if seq, err = ParseSegmentSequence(sequence); err != nil {
			return nil, err
		}
		if !seq.Contains(seg) {
			return nil, fmt.Errorf("provided segment %s can't be found in sequence %s", seg, seq)
		}
	}
	return NewExecutionTuple(&seg, seq)
}

// stripe shares out the cycle's indexes: express every segment length over the least common
// denominator L; take segments by share descending (ties in sequence order); give index i to
// the first segment s, holding c_s indexes so far, with i ≥ ⌈c_s·L/m_s⌉. That condition spaces
// each segment's indexes as evenly as possible through the cycle.
func (et *ExecutionTuple) stripe() error {
	n := len(et.Sequence) - 1
	lengths := make([]*big.Rat, n)
	lcd := big.NewInt(1)
	for i := range n {
		lengths[i] = new(big.Rat).Sub(et.Sequence[i+1], et.Sequence[i])
		den := lengths[i].Denom()
		g := new(big.Int).GCD(nil, nil, lcd, den)
		lcd.Mul(lcd, new(big.Int).Quo(den, g))
		if !lcd.IsInt64() || lcd.Int64()*int64(n) > maxStripingWork {
			return fmt.Errorf("execution segment sequence %s is too fine-grained to stripe", et.Sequence)
		}
	}
	L := lcd.Int64()
	et.cycle = L
	et.shares = make([]int64, n)
	for i, l := range lengths {
		m := new(big.Int).Mul(l.Num(), big.NewInt(L))
		et.shares[i] = m.Quo(m, l.Denom()).Int64()
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return et.shares[order[a]] > et.shares[order[b]] })

	et.owned = make([][]int64, n)
	for i := int64(0); i < L; i++ {
		chosen := -1
		for _, s := range order {
			c, m := int64(len(et.owned[s])), et.shares[s]
			if c < m && i >= ceilDiv(c*L, m) {
				chosen = s
				break
			}
		}
		if chosen < 0 { // not reachable for valid shares; stay total rather than panic
			for _, s := range order {
				if int64(len(et.owned[s])) < et.shares[s] {
					chosen = s
					break
				}
			}
		}
		et.owned[chosen] = append(et.owned[chosen], i)
	}
	return nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Length is the fraction of the whole test this instance runs (1 for a nil tuple).
func (et *ExecutionTuple) Length() *big.Rat {
	if et == nil {
		return big.NewRat(1, 1)
	}
	return et.Segment.Length()
}

// Scale returns this instance's share of v: ⌊v/L⌋·m + (own cycle indexes below v mod L). The
// shares of all instances sum to v and grow monotonically with v.
func (et *ExecutionTuple) Scale(v int64) int64 {
	if et == nil {
		return v
	}
	return et.scaleFor(et.index, v)
}

// scaleAll returns every segment's share of v, in sequence order.
func (et *ExecutionTuple) scaleAll(v int64) []int64 {
	if et == nil {
		return []int64{v}
	}
	out := make([]int64, len(et.shares))
	for s := range out {
		out[s] = et.scaleFor(s, v)
	}
	return out
}

func (et *ExecutionTuple) scaleFor(s int, v int64) int64 {
	if v < 0 {
		return -et.scaleFor(s, -v)
	}
	rem := v % et.cycle
	below := sort.Search(len(et.owned[s]), func(i int) bool { return et.owned[s][i] >= rem })
	return v/et.cycle*et.shares[s] + int64(below)
}

// Global maps this instance's local index k (0-based: its k-th iteration or VU) to the global
// index it stands for, so iteration and VU numbers are unique across instances.
func (et *ExecutionTuple) Global(k int64) int64 {
	if et == nil || k < 0 {
		return k
	}
	own := et.owned[et.index]
	m := int64(len(own))
	return k/m*et.cycle + own[k%m]
}

// Resegment re-splits the test by a value (maxVUs for arrival-rate, vus for shared-iterations;
// k6's GetNewExecutionTupleFromValue): instances whose share of v is 0 drop out and the others
// take over their part, each with a segment as long as its share of v. ok is false when this
// instance drops out.
func (et *ExecutionTuple) Resegment(v int64) (_ *ExecutionTuple, ok bool) {
	if et == nil || v <= 0 || v%et.cycle == 0 {
		return et, true
	}
	shares := et.scaleAll(v)
	if shares[et.index] == 0 {
		return nil, false
	}
	seq := SegmentSequence{new(big.Rat)}
	var cum int64
	var mine Segment
	for s, sh := range shares {
		if sh == 0 {
			continue
		}
		from := big.NewRat(cum, v)
		cum += sh
		to := big.NewRat(cum, v)
		seq = append(seq, to)
		if s == et.index {
			mine = Segment{From: from, To: to}
		}
	}
	out, err := NewExecutionTuple(&mine, seq)
	if err != nil { // the new sequence is coarser than the old one, so this cannot fail
		return et, true
	}
	return out, true
}
