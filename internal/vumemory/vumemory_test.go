package vumemory

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name  string
		vus   int64
		avail uint64
		want  string // "" for no error
	}{
		{"a million VUs in 20 GiB", 1_000_000, 20 * gib,
			"1000000 VUs need ~171 GiB at ~179 KiB per VU, but ~20 GiB is available (test); at most ~117159 VUs fit"},
		{"exactly what fits", 117_159, 20 * gib, ""},
		{"one more", 117_160, 20 * gib, "at most ~117159 VUs fit"},
		{"a moderate count", 1000, 20 * gib, ""},
		{"no VUs", 0, 0, ""},
		{"more VUs than bytes can count", math.MaxInt64, gib, "need ~16 EiB"},
	} {
		err := Check(tc.vus, Available{Bytes: tc.avail, Source: "test"})
		var e *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tc.name, err)
		case tc.want != "" && (!errors.As(err, &e) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an *Error with %q", tc.name, err, tc.want)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	got, ok := memAvailable([]byte("MemTotal:       32768000 kB\nMemFree:  100 kB\nMemAvailable:   19736724 kB\n"))
	if !ok || got != 19736724<<10 {
		t.Errorf("memAvailable = %d, %v", got, ok)
	}
	if _, ok := memAvailable([]byte("MemTotal: 1 kB\n")); ok {
		t.Error("found MemAvailable in a file without it")
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[uint64]string{
		512: "512 B", 179 << 10: "179 KiB", 40 << 20: "40 MiB", 3 << 29: "1.5 GiB", 171 << 30: "171 GiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestMeasure: on Linux the machine's available memory is always known, and a figure is never 0.
func TestMeasure(t *testing.T) {
	a, ok := Measure()
	if !ok || a.Bytes == 0 || a.Source == "" {
		t.Errorf("Measure = %+v, %v", a, ok)
	}
}
