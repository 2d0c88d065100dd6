package metrics

import "testing"

func TestBatchRecycling(t *testing.T) {
	m := &Metric{Name: "x"}
	b := GetBatch(8)
	if len(b) != 0 || cap(b) < 8 {
		t.Fatalf("GetBatch(8): len %d cap %d", len(b), cap(b))
	}
	b = append(b, Sample{Metric: m, Value: 1, Tags: NewTags(map[string]string{"a": "b"})})
	RecycleBatch(b)
	if b[:1][0].Metric != nil || b[:1][0].Tags != nil {
		t.Error("a recycled batch still points at its samples' metric and tags")
	}
	if got := GetBatch(1024); cap(got) < 1024 {
		t.Errorf("GetBatch(1024) returned cap %d", cap(got))
	}
	RecycleBatch(nil) // no-op, must not panic
}

func BenchmarkBatchRecycled(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		s := GetBatch(256)
		for j := 0; j < 256; j++ {
			s = append(s, Sample{Value: float64(j)})
		}
		RecycleBatch(s)
	}
}
