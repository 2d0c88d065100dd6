package output

import (
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

func TestSamples(t *testing.T) {
	m := metrics.NewRegistry().MustNewMetric("mm", metrics.Counter, metrics.Default)
	batches := [][]metrics.Sample{{{Metric: m, Value: 1}, {}, {Metric: m, Value: 2}}, nil, {{}, {Metric: m, Value: 3}}}
	var got []float64
	for s := range Samples(batches) {
		got = append(got, s.Value)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("samples %v, want 1 2 3 (the ones without a metric skipped)", got)
	}
	for s := range Samples(batches) {
		s.Value = 9 // a pointer into the batch, not a copy
		break
	}
	if batches[0][0].Value != 9 {
		t.Error("Samples yields copies")
	}
}
