package output

import (
	"iter"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Samples yields the samples of a flush's batches in order, skipping those without a metric
// (a batch's unused slots).
func Samples(batches [][]metrics.Sample) iter.Seq[*metrics.Sample] {
	return func(yield func(*metrics.Sample) bool) {
		for _, batch := range batches {
			for i := range batch {
				if batch[i].Metric != nil && !yield(&batch[i]) {
					return
				}
			}
		}
	}
}
