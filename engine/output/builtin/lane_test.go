package builtin

import (
	"path/filepath"
	"testing"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// deltaOnly is an output that takes deltas (as an aggregator's stream could).
type deltaOnly struct{}

func (deltaOnly) AddSamples([]metrics.Sample)     {}
func (deltaOnly) AddDeltas([]metrics.SeriesDelta) {}

// TestPerSampleOutputsTurnTheFullLaneOn: the collector lets VUs fold their samples (the fast
// lane) while no output needs them one by one, and stops as soon as any -o output is added,
// whatever its type; an output that takes deltas keeps the fast lane.
func TestPerSampleOutputsTurnTheFullLaneOn(t *testing.T) {
	dir := t.TempDir()
	specs := []string{
		"json=" + filepath.Join(dir, "out.json"),
		"csv=" + filepath.Join(dir, "out.csv"),
		"influxdb=http://127.0.0.1:1/k6",
		"experimental-prometheus-rw",
		"opentelemetry",
		"web-dashboard",
	}
	c := ingest.New(ingest.Options{})
	c.AddOutput(deltaOnly{})
	if !c.FoldSamples() {
		t.Fatal("no per-sample output, yet the collector does not let VUs fold")
	}
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			set, err := Open([]string{spec}, output.Params{})
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			c := ingest.New(ingest.Options{})
			var _ metrics.DeltaPusher = c
			c.AddOutput(set)
			if c.FoldSamples() {
				t.Errorf("-o %s: the collector still lets VUs fold their samples", spec)
			}
		})
	}
}
