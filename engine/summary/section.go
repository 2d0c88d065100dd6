package summary

import "strings"

// Section is a block a front end adds to the text summary from what it knows of its own
// metrics (a protocol module's table per server, a verdict): a title, shown upper-case as the
// summary's own sections are, and lines shown as they are, indented like the metrics.
type Section struct {
	Title string
	Lines []string
}

// sections writes the front end's sections after everything else.
func (t *textRenderer) sections() {
	for _, s := range t.d.Sections {
		if len(s.Lines) == 0 {
			continue
		}
		if n := len(t.lines); n > 0 && t.lines[n-1] != "" {
			t.add("")
		}
		t.add("  █ "+strings.ToUpper(s.Title), "")
		for _, l := range s.Lines {
			t.add("    " + l)
		}
		t.add("")
	}
}
