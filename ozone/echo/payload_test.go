package echo

import (
	"bytes"
	"math"
	"testing"
)

func TestPayloads(t *testing.T) {
	seed := bytes.Repeat([]byte{1, 2, 3, 4}, 256)
	if p := payloadFromSeed(seed, 3*1024); len(p) != 3072 || !bytes.Equal(p[2048:], seed) {
		t.Errorf("request payload len %d", len(p))
	}
	if p := payloadFromSeed(seed, 1500); len(p) != 1500 || !bytes.Equal(p[1024:], seed[:476]) {
		t.Errorf("a size that is not whole KiB: len %d", len(p))
	}
	if p := payloadFromSeed(seed, 0); len(p) != 0 || p == nil {
		t.Error("zero payload must be empty, not nil")
	}
	if a, b := payload(2048), payload(1024); len(a) != 2048 || !bytes.Equal(a[:1024], b) || !bytes.Equal(a[1024:], b) {
		t.Error("the process seed must be reused")
	}
	for _, tt := range []struct {
		n        int64
		uncapped bool
		want     int32
	}{{0, false, 0}, {-1, false, 0}, {1024, false, 1024}, {2048 * 1024, false, 2097151}, {2048 * 1024, true, 2097152}, {1 << 40, true, math.MaxInt32}} {
		if got := responseSize(tt.n, tt.uncapped); got != tt.want {
			t.Errorf("responseSize(%d, %v) = %d, want %d", tt.n, tt.uncapped, got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "512": 512, "512B": 512, "4KB": 4096, "4 kib": 4096, "4k": 4096, "2MB": 2 << 20, "1GiB": 1 << 30, " 7 ": 7,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KB", "-1", "1.5KB", "4XB", "99999999999999999999", "9999999999999GB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}
