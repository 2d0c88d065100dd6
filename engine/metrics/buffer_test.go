package metrics

import (
	"sync"
	"testing"
	"time"
)

type recorder struct {
	mu      sync.Mutex
	batches [][]Sample
}

func (r *recorder) PushSamples(s []Sample) {
	r.mu.Lock()
	r.batches = append(r.batches, s)
	r.mu.Unlock()
}

func TestBufferBySize(t *testing.T) {
	var r recorder
	b := NewBuffer(&r, 3, 0)
	for i := 0; i < 7; i++ {
		b.Add(at(i, float64(i)))
	}
	if len(r.batches) != 2 || len(r.batches[0]) != 3 || b.Len() != 1 {
		t.Fatalf("batches %d, buffered %d", len(r.batches), b.Len())
	}
	b.Flush()
	b.Flush() // nothing left: no empty batch
	if len(r.batches) != 3 || r.batches[2][0].Value != 6 {
		t.Fatalf("after flush: %d batches", len(r.batches))
	}
	// A pushed batch belongs to the receiver: later adds must not write into it.
	b.Add(at(9, 99))
	if r.batches[0][0].Value != 0 {
		t.Error("buffer reused a pushed slice")
	}
}

func TestBufferByAge(t *testing.T) {
	var r recorder
	b := NewBuffer(&r, 0, 100*time.Millisecond)
	t0 := time.Unix(100, 0)
	b.Add(Sample{Time: t0})
	b.Add(Sample{Time: t0.Add(50 * time.Millisecond)})
	if len(r.batches) != 0 {
		t.Fatal("pushed too early")
	}
	b.Add(Sample{Time: t0.Add(100 * time.Millisecond)})
	if len(r.batches) != 1 || len(r.batches[0]) != 3 {
		t.Fatalf("batches %v", len(r.batches))
	}
}

func TestBufferConcurrent(t *testing.T) {
	var r recorder
	b := NewBuffer(&r, 10, 0)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				b.Add(Sample{Value: 1})
			}
		}()
	}
	wg.Wait()
	b.Flush()
	n := 0
	for _, batch := range r.batches {
		n += len(batch)
	}
	if n != 8000 {
		t.Errorf("%d samples pushed, want 8000", n)
	}
}
