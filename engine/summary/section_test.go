package summary

import (
	"strings"
	"testing"
)

// A front end's sections follow the metrics, titled like the summary's own; empty ones are left
// out, and JS leaves them all out.
func TestSections(t *testing.T) {
	d, err := Build(Input{Options: Options{NoColor: true}, Sections: []Section{
		{Title: "per server", Lines: []string{"a  1.2", "b  3.4"}},
		{Title: "empty"},
		{Title: "verdict", Lines: []string{"SLOW b"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	text := d.Text()
	want := "  █ PER SERVER\n\n    a  1.2\n    b  3.4\n\n  █ VERDICT\n\n    SLOW b\n"
	if !strings.HasSuffix(text, want) {
		t.Errorf("text summary:\n%s\nwant it to end with:\n%s", text, want)
	}
	if strings.Contains(text, "EMPTY") {
		t.Errorf("an empty section is shown:\n%s", text)
	}
	if _, ok := d.JS()["sections"]; ok {
		t.Error("sections in the handleSummary data")
	}
}
