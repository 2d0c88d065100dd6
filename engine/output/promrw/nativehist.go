package promrw

import (
	"math"
	"slices"

	"github.com/dnecho/dnecho/proto/promrwpb"
)

// Native histograms as k6 writes them: client_golang's bucket factor 1.1 gives schema 3, buckets
// whose bounds are powers of 2^(1/8) (about 9% wide), and client_golang's default zero threshold
// 2^-128. Bucket i holds values in (2^((i-1)/8), 2^(i/8)]. The counts are cumulative over the test,
// and their number is bounded by the value range (about 250 buckets from 1 µs to 1 h), so memory
// stays flat however many samples arrive.
const (
	nativeSchema        = 3
	nativeZeroThreshold = 2.938735877055719e-39 // 2^-128
)

type nativeHist struct {
	count, zero uint64
	sum         float64
	buckets     map[int32]uint64
}

func newNativeHist() *nativeHist { return &nativeHist{buckets: map[int32]uint64{}} }

func (h *nativeHist) observe(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return
	}
	h.count++
	h.sum += v
	if v <= nativeZeroThreshold {
		h.zero++
		return
	}
	h.buckets[bucketIndex(v)]++
}

// bucketIndex is the schema-3 bucket of v > 0: the smallest i with v <= 2^(i/8).
func bucketIndex(v float64) int32 {
	i := int32(math.Ceil(math.Log2(v) * 8))
	// Log2 can be off by one ulp at a bound; settle it against the bounds themselves.
	for v > math.Exp2(float64(i)/8) {
		i++
	}
	for v <= math.Exp2(float64(i-1)/8) {
		i--
	}
	return i
}

// proto encodes the histogram with delta-encoded bucket counts in spans of adjacent buckets.
func (h *nativeHist) proto(ts int64) *promrwpb.Histogram {
	p := &promrwpb.Histogram{
		Count: &promrwpb.Histogram_CountInt{CountInt: h.count}, Sum: h.sum, Schema: nativeSchema,
		ZeroThreshold: nativeZeroThreshold, ZeroCount: &promrwpb.Histogram_ZeroCountInt{ZeroCountInt: h.zero}, Timestamp: ts,
	}
	idx := make([]int32, 0, len(h.buckets))
	for i := range h.buckets {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var prev int64
	for n, i := range idx {
		switch {
		case n == 0:
			p.PositiveSpans = append(p.PositiveSpans, &promrwpb.BucketSpan{Offset: i, Length: 1})
		case i == idx[n-1]+1:
			p.PositiveSpans[len(p.PositiveSpans)-1].Length++
		default:
			p.PositiveSpans = append(p.PositiveSpans, &promrwpb.BucketSpan{Offset: i - idx[n-1] - 1, Length: 1})
		}
		c := int64(h.buckets[i])
		p.PositiveDeltas = append(p.PositiveDeltas, c-prev)
		prev = c
	}
	return p
}
