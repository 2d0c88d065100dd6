package plan

import (
	"fmt"
	"slices"
	"testing"
)

func TestParseSegment(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "0:1"},
		{"0:1", "0:1"},
		{"1/4:1/2", "1/4:1/2"},
		{"2/4:3/4", "1/2:3/4"}, // unreduced, as k6-operator writes them
		{"0.25:0.5", "1/4:1/2"},
		{"25%:50%", "1/4:1/2"},
		{"2/4:75%", "1/2:3/4"},
		{"1/2", "0:1/2"},
		{"50%", "0:1/2"},
		{"1/2:1/4", "segment start(0.50) must be less than its end(0.25)"},
		{"0:0", "segment start(0.00) must be less than its end(0.00)"},
		{"-1/4:1", "segment start value must be at least 0 but was -0.25"},
		{"0:1.5", "segment end value can't be more than 1 but was 1.50"},
		{"a:b", "'a' is not a valid percentage, decimal, fraction or interval value"},
		{"12.5%:1", "'12.5%' is not a valid percentage"},
	}
	for _, c := range cases {
		s, err := ParseSegment(c.in)
		got := ""
		if err == nil {
			got = s.String()
		} else {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ParseSegment(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseSegmentSequence(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0,1/4,1/2,3/4,1", "0,1/4,1/2,3/4,1"},
		{"0,1/4,2/4,3/4,1", "0,1/4,1/2,3/4,1"},
		{"0.25,0.5", "1/4,1/2"}, // gaps are filled by NewExecutionTuple
		{"0,1", "0,1"},
		{"1", "at least 2 points are needed for an execution segment sequence, 1 given"},
		{"0,1/2,1/2,1", "segment start(0.50) must be less than its end(0.50)"},
		{"0,3/4,1/2,1", "segment start(0.75) must be less than its end(0.50)"},
		{"0,2", "segment end value can't be more than 1 but was 2.00"},
		{"0,x", "'x' is not a valid percentage, decimal, fraction or interval value"},
	}
	for _, c := range cases {
		q, err := ParseSegmentSequence(c.in)
		got := ""
		if err == nil {
			got = q.String()
		} else {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ParseSegmentSequence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func tuple(t testing.TB, seg, seq string) *ExecutionTuple {
	t.Helper()
	et, err := ParseExecutionTuple(seg, seq)
	if err != nil {
		t.Fatal(err)
	}
	return et
}

// TestStripingWorkedValues checks worked values of k6's striping: shares of v per segment and
// owned indexes.
func TestStripingWorkedValues(t *testing.T) {
	cases := []struct {
		seq    string
		segs   []string
		shares map[int64][]int64
		owned  [][]int64 // first global indexes of each segment
	}{
		{"0,1/4,1/2,3/4,1", []string{"0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"},
			map[int64][]int64{1: {1, 0, 0, 0}, 2: {1, 1, 0, 0}, 3: {1, 1, 1, 0}, 5: {2, 1, 1, 1}, 10: {3, 3, 2, 2}, 100: {25, 25, 25, 25}},
			[][]int64{{0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}}},
		{"0,1/3,2/3,1", []string{"0:1/3", "1/3:2/3", "2/3:1"},
			map[int64][]int64{5: {2, 2, 1}, 10: {4, 3, 3}, 100: {34, 33, 33}},
			[][]int64{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}},
		{"0,1/2,3/4,1", []string{"0:1/2", "1/2:3/4", "3/4:1"},
			map[int64][]int64{3: {2, 1, 0}, 5: {3, 1, 1}, 10: {5, 3, 2}},
			[][]int64{{0, 2, 4, 6}, {1, 5, 9}, {3, 7, 11}}},
	}
	for _, c := range cases {
		first := tuple(t, c.segs[0], c.seq)
		for v, want := range c.shares {
			if got := first.scaleAll(v); !slices.Equal(got, want) {
				t.Errorf("%s: shares of %d = %v, want %v", c.seq, v, got, want)
			}
		}
		for i, seg := range c.segs {
			et := tuple(t, seg, c.seq)
			for v, want := range c.shares {
				if got := et.Scale(v); got != want[i] {
					t.Errorf("%s %s: Scale(%d) = %d, want %d", c.seq, seg, v, got, want[i])
				}
			}
			var got []int64
			for k := range int64(len(c.owned[i])) {
				got = append(got, et.Global(k))
			}
			if !slices.Equal(got, c.owned[i]) {
				t.Errorf("%s %s: global indexes %v, want %v", c.seq, seg, got, c.owned[i])
			}
		}
	}
}

// TestStripingProperties: shares always sum to v, are monotonic, and the stripes partition the
// global indexes.
func TestStripingProperties(t *testing.T) {
	for _, seq := range []string{"0,1/4,1/2,3/4,1", "0,1/3,2/3,1", "0,1/2,3/4,1", "0,0.1,0.35,0.6,1", "0,1/7,1"} {
		q, _ := ParseSegmentSequence(seq)
		var ets []*ExecutionTuple
		for i := 0; i+1 < len(q); i++ {
			et, err := NewExecutionTuple(&Segment{From: q[i], To: q[i+1]}, q)
			if err != nil {
				t.Fatal(err)
			}
			ets = append(ets, et)
		}
		prev := make([]int64, len(ets))
		for v := int64(0); v <= 300; v++ {
			var sum int64
			for i, et := range ets {
				s := et.Scale(v)
				if s < prev[i] {
					t.Errorf("%s: segment %d not monotonic at %d", seq, i, v)
				}
				prev[i] = s
				sum += s
			}
			if sum != v {
				t.Errorf("%s: shares of %d sum to %d", seq, v, sum)
			}
		}
		seen := map[int64]int{}
		for i, et := range ets {
			for k := range et.Scale(1000) {
				g := et.Global(k)
				if _, dup := seen[g]; dup {
					t.Errorf("%s: global index %d owned twice", seq, g)
				}
				seen[g] = i
			}
		}
		for g := range int64(1000) {
			if _, ok := seen[g]; !ok {
				t.Errorf("%s: global index %d owned by nobody", seq, g)
			}
		}
	}
}

func TestParseExecutionTuple(t *testing.T) {
	if et, err := ParseExecutionTuple("", ""); err != nil || et.Length().Cmp(fullSegment().Length()) != 0 {
		t.Errorf("no options: %v, %v; want the whole test", et, err)
	}
	if et, err := ParseExecutionTuple("1/4:1/2", ""); err != nil || et.Sequence.String() != "0,1/4,1/2,1" {
		t.Errorf("segment alone: %v, %v", et, err)
	}
	if et, err := ParseExecutionTuple("1/4:1/2", "1/4,1/2"); err != nil || et.Sequence.String() != "0,1/4,1/2,1" {
		t.Errorf("sequence with gaps: %v, %v", et, err)
	}
	for _, bad := range [][2]string{{"x", ""}, {"", "0,x"}} {
		if _, err := ParseExecutionTuple(bad[0], bad[1]); err == nil {
			t.Errorf("ParseExecutionTuple(%q, %q) accepted", bad[0], bad[1])
		}
	}
	// k6 looks the segment up in the sequence as written (grafana/k6 lib/options.go, Validate).
	for _, c := range [][3]string{
		{"1/3:2/3", "0,1/2,1", "provided segment 1/3:2/3 can't be found in sequence 0,1/2,1"},
		{"", "0,1/2,1", "provided segment 0:1 can't be found in sequence 0,1/2,1"},
		{"0:1/4", "1/4,1/2", "provided segment 0:1/4 can't be found in sequence 1/4,1/2"},
	} {
		if _, err := ParseExecutionTuple(c[0], c[1]); err == nil || err.Error() != c[2] {
			t.Errorf("ParseExecutionTuple(%q, %q) = %v, want %q", c[0], c[1], err, c[2])
		}
	}
}

func TestExecutionTupleErrorsAndNil(t *testing.T) {
	s, _ := ParseSegment("1/4:1/2")
	q, _ := ParseSegmentSequence("0,1/3,2/3,1")
	if _, err := NewExecutionTuple(&s, q); err == nil || err.Error() != "couldn't find segment 1/4:1/2 in sequence 0,1/3,2/3,1" {
		t.Errorf("err = %v", err)
	}
	var nilET *ExecutionTuple
	if nilET.Scale(7) != 7 || nilET.Global(7) != 7 || nilET.Length().Cmp(fullSegment().Length()) != 0 {
		t.Error("nil tuple must be the identity")
	}
	// A lone segment gets a sequence of 0, its bounds and 1.
	et, err := NewExecutionTuple(&s, nil)
	if err != nil || et.Sequence.String() != "0,1/4,1/2,1" || et.Scale(4) != 1 {
		t.Errorf("derived sequence: %v %v", et, err)
	}
	// Pathological sequences are refused, not ground through.
	huge, _ := ParseSegmentSequence("0,1/999983,1/999979,1")
	if _, err := NewExecutionTuple(&Segment{From: huge[0], To: huge[1]}, huge); err == nil {
		t.Error("a too fine-grained sequence must be refused")
	}
}

// TestResegment: maxVUs 2 on 4 instances → 2 instances each run half.
func TestResegment(t *testing.T) {
	seq := "0,1/4,1/2,3/4,1"
	var got []string
	for _, seg := range []string{"0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"} {
		nt, ok := tuple(t, seg, seq).Resegment(2)
		if !ok {
			got = append(got, "out")
			continue
		}
		got = append(got, fmt.Sprintf("%s@%s:%d", nt.Segment, nt.Sequence, nt.Scale(2)))
	}
	want := []string{"0:1/2@0,1/2,1:1", "1/2:1@0,1/2,1:1", "out", "out"}
	if !slices.Equal(got, want) {
		t.Errorf("resegment = %v, want %v", got, want)
	}
	// A value that divides evenly keeps the tuple.
	et := tuple(t, "1/4:1/2", seq)
	if nt, ok := et.Resegment(8); !ok || nt != et {
		t.Error("resegment by a multiple of the cycle must keep the tuple")
	}
}

func BenchmarkStripeGlobal(b *testing.B) {
	et := tuple(b, "1/3:2/3", "0,1/3,2/3,1")
	var sink int64
	for i := range b.N {
		sink += et.Global(int64(i))
	}
	_ = sink
}
