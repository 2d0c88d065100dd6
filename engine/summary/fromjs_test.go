package summary

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/checktree"
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
	if back.Duration != d.Duration || len(back.Metrics) != len(d.Metrics) {
		t.Fatalf("read back: duration %v, %d metrics", back.Duration, len(back.Metrics))
	}
	if got, want := groupLines(back.Root), groupLines(d.Root); got != want {
		t.Fatalf("read back groups:\n%s\nwant:\n%s", got, want)
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

// groupLines writes g's tree one node a line, each group's checks before its groups.
func groupLines(g *checktree.Group) string {
	var b strings.Builder
	fmt.Fprintf(&b, "group %q %q %s\n", g.Name, g.Path, g.ID)
	for _, c := range g.Checks() {
		p, f := c.Counts()
		fmt.Fprintf(&b, "check %q %q %s %d/%d\n", c.Name, c.Path, c.ID, p, f)
	}
	for _, sub := range g.Groups() {
		b.WriteString(groupLines(sub))
	}
	return b.String()
}
