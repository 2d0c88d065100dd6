package options

import (
	"testing"

	"github.com/dnecho/dnecho/engine/null"
)

// TestExecutionSegmentOptions: the script may set the segment, the command line overrides it,
// and the consolidated options carry the parsed tuple; errors name the option and keep k6's text.
func TestExecutionSegmentOptions(t *testing.T) {
	script := mustScript(t, `{"executionSegment": "0:1/2", "executionSegmentSequence": "0,1/2,1", "vus": 10, "duration": "10s"}`)
	c, err := Consolidate(Layers{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tuple == nil || c.Tuple.Segment.String() != "0:1/2" || c.Tuple.Scale(10) != 5 {
		t.Fatalf("tuple = %v", c.Tuple)
	}
	cli := Options{ExecutionSegment: null.From("2/4:3/4"), ExecutionSegmentSequence: null.From("0,1/4,2/4,3/4,1")}
	if c, err = Consolidate(Layers{Script: script, CLI: cli}); err != nil {
		t.Fatal(err)
	}
	if c.Tuple.Segment.String() != "1/2:3/4" || c.Tuple.Scale(10) != 2 {
		t.Fatalf("CLI tuple = %v (scale 10 → %d)", c.Tuple.Segment, c.Tuple.Scale(10))
	}
	if c, err = Consolidate(Layers{Script: mustScript(t, `{"vus": 1}`)}); err != nil || c.Tuple != nil {
		t.Fatalf("no segment: %v, %v; want a nil tuple (the whole test)", c.Tuple, err)
	}
	for _, bad := range []struct{ seg, seq, want string }{
		{"1/2:1/4", "", "invalid executionSegment: segment start(0.50) must be less than its end(0.25)"},
		{"0:1/3", "0,1/2,1", "invalid executionSegment: provided segment 0:1/3 can't be found in sequence 0,1/2,1"},
		{"0:1/2", "0,1/2,x", "invalid executionSegmentSequence: 'x' is not a valid percentage, decimal, fraction or interval value"},
	} {
		o := Options{ExecutionSegment: null.From(bad.seg)}
		if bad.seq != "" {
			o.ExecutionSegmentSequence = null.From(bad.seq)
		}
		_, err := Consolidate(Layers{CLI: o})
		if err == nil || err.Error() != bad.want {
			t.Errorf("segment %q sequence %q: %v, want %q", bad.seg, bad.seq, err, bad.want)
		}
	}
}
