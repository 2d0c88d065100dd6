package pacing

import (
	"testing"
	"time"
)

func TestConstant(t *testing.T) {
	cases := []struct {
		i, rate int64
		unit    time.Duration
		want    time.Duration
	}{
		{0, 10, time.Second, 0},
		{1, 10, time.Second, 100 * time.Millisecond},
		{25, 10, time.Second, 2500 * time.Millisecond},
		{1, 3, time.Second, 333333333},
		{2, 3, time.Second, 666666666},
		{3, 3, time.Second, time.Second},
		{7, 2, time.Minute, 210 * time.Second},
		{1_000_000_000, 1, time.Minute, Never},                      // 1e9 minutes overflows time.Duration
		{5_000_000_000, 100_000, time.Minute, 50_000 * time.Minute}, // needs a 128-bit intermediate
		{1, 0, time.Second, Never},
		{1, 1, 0, Never},
		{-1, 1, time.Second, Never},
	}
	for _, c := range cases {
		if got := Constant(c.i, c.rate, c.unit); got != c.want {
			t.Errorf("Constant(%d, %d, %s) = %v, want %v", c.i, c.rate, c.unit, got, c.want)
		}
	}
}

func BenchmarkConstant(b *testing.B) {
	var sink time.Duration
	for i := 0; i < b.N; i++ {
		sink += Constant(int64(i), 12345, time.Second)
	}
	_ = sink
}
