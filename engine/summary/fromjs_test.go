package summary

import (
	"strings"
	"testing"
)

// TestFromJSRendersTheSameText: the data object handleSummary receives, read back, renders the
// text summary of the data it came from, but for the per-DataNode breakdown, which the object
// cannot tell from sub-metrics of thresholds.
func TestFromJSRendersTheSameText(t *testing.T) {
	d, err := Build(scenario(t))
	if err != nil {
		t.Fatal(err)
	}
	js, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromJS(js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Duration != d.Duration || len(back.Metrics) != len(d.Metrics) || back.Root.Checks[0].Passes != d.Root.Checks[0].Passes {
		t.Fatalf("read back: duration %v, %d metrics, root checks %+v", back.Duration, len(back.Metrics), back.Root.Checks)
	}
	// The object keeps a threshold's verdict and the value it was judged on, also a p(99) that
	// summaryTrendStats lacks (no N/A), the TOTAL RESULTS columns stay summaryTrendStats; its
	// thresholds come in key order.
	_, got, _ := strings.Cut(back.Text(), "█ TOTAL RESULTS")
	_, want, _ := strings.Cut(d.Text(), "█ TOTAL RESULTS")
	if got != want {
		t.Errorf("TOTAL RESULTS differ:\n--- from JS ---\n%s\n--- original ---\n%s", got, want)
	}
	for _, line := range []string{"✓ 'avg<2' avg=1.48ms", "✓ 'p(99)<5' p(99)=4.08ms", "✗ 'p(99)<3' p(99)=4.14ms", "✗ 'rate>0.99' rate=95.00%"} {
		if !strings.Contains(back.Text(), line) {
			t.Errorf("thresholds lack %q:\n%s", line, back.Text())
		}
	}
	for _, bad := range []string{`{"metrics": {"m": {"type": "histogram", "contains": "default"}}}`, `[1, 2]`} {
		if _, err := FromJS([]byte(bad)); err == nil || !strings.Contains(err.Error(), "summary data") {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}
