package builtin

import (
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/output"
)

func TestNew(t *testing.T) {
	for spec, want := range map[string]string{
		"json":                                  "json (stdout)",
		"json=-":                                "json (stdout)",
		"json=out.json.gz":                      "json (out.json.gz)",
		"csv":                                   "csv (file.csv)",
		"csv=r.csv":                             "csv (r.csv)",
		"csv=fileName=x.csv,timeFormat=rfc3339": "csv (x.csv)",
	} {
		o, err := New(spec, output.Params{})
		if err != nil || o.Description() != want {
			t.Errorf("%s: %v %v, want %s", spec, o, err, want)
		}
	}
	if _, err := New("influxdb=http://x", output.Params{}); err == nil || err.Error() != `unsupported output type "influxdb": available are csv, json` {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := New("csv=timeFormat=x", output.Params{}); err == nil {
		t.Error("bad csv argument accepted")
	}
	for _, spec := range []string{"csv=", "json=", "csv= "} {
		if _, err := New(spec, output.Params{}); err == nil || !strings.Contains(err.Error(), "nothing after") {
			t.Errorf("%q: %v, want a refusal of the empty destination", spec, err)
		}
	}
}
