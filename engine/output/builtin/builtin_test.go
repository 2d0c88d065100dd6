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
	if _, err := New("statsd", output.Params{}); err == nil || !strings.HasPrefix(err.Error(), `unsupported output type "statsd": available are csv, experimental-prometheus-rw, influxdb, json`) {
		t.Errorf("unknown type: %v", err)
	}
	// Grafana Cloud k6 is refused in one line that names the outputs that reach cloud stores.
	_, err := New("cloud", output.Params{})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("cloud: %v", err)
	}
	for _, want := range []string{"experimental-prometheus-rw", "xk6-influxdb", "opentelemetry"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("cloud refusal %q does not name %s", err, want)
		}
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
