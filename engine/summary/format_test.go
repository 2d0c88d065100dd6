package summary

import (
	"math"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		ms   float64
		want string
	}{
		{0, "0s"},
		{0.0000004, "0ns"},
		{0.000999, "999ns"},
		{0.0009999, "999ns"}, // truncated, not rounded
		{0.001, "1µs"},
		{0.00123, "1.23µs"},
		{0.0012399, "1.23µs"},
		{0.5, "500µs"},
		{0.99999, "999.99µs"},
		{1, "1ms"},
		{1.23, "1.23ms"},
		{1.2, "1.2ms"},
		{999.999, "999.99ms"},
		{1000, "1s"},
		{1500, "1.5s"},
		{59999, "59.99s"},
		{60000, "1m0s"},
		{90500, "1m30s"},
		{3723000, "1h2m3s"},
		{90061000, "25h1m1s"},
		{-1.5, "-1.5ms"},
		{math.NaN(), "0s"},
	} {
		if got := formatTime(tc.ms); got != tc.want {
			t.Errorf("formatTime(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

func TestFormatFixedTime(t *testing.T) {
	for _, tc := range []struct {
		ms         float64
		unit, want string
	}{
		{1.23456, "ms", "1.23ms"}, {1.235, "ms", "1.24ms"}, {1500, "s", "1.50s"}, {0.5, "us", "500.00µs"}, {0, "s", "0.00s"},
	} {
		if got := formatFixedTime(tc.ms, tc.unit); got != tc.want {
			t.Errorf("formatFixedTime(%v, %s) = %q, want %q", tc.ms, tc.unit, got, tc.want)
		}
	}
}

func TestFormatData(t *testing.T) {
	for _, tc := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"}, {7, "7 B"}, {9.4, "9 B"}, {10, "10 B"}, {999, "999 B"}, {1000, "1.0 kB"},
		{4900, "4.9 kB"}, {4949, "4.9 kB"}, {9960, "10 kB"}, {519000, "519 kB"}, {519600, "520 kB"},
		{2048000, "2.0 MB"}, {3.2e9, "3.2 GB"}, {1.5e13, "15 TB"}, {2e21, "2000 EB"}, {-4900, "-4.9 kB"},
	} {
		if got := formatData(tc.b); got != tc.want {
			t.Errorf("formatData(%v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestFormatDefault(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {500, "500"}, {49.94012345, "49.940123"}, {0.0000004, "0"}, {0.0000005, "0.000001"},
		{1.5, "1.5"}, {-2.25, "-2.25"}, {-0.0000001, "0"}, {1e20, "100000000000000000000"},
	} {
		if got := formatDefault(tc.v); got != tc.want {
			t.Errorf("formatDefault(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestFormatPercent(t *testing.T) {
	for _, tc := range []struct {
		r    float64
		want string
	}{
		{1, "100.00%"}, {0, "0.00%"}, {0.95, "95.00%"}, {0.99999, "99.99%"}, {0.123456, "12.34%"}, {1.0 / 3, "33.33%"},
	} {
		if got := formatPercent(tc.r); got != tc.want {
			t.Errorf("formatPercent(%v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestFormatValueDispatch(t *testing.T) {
	if got := formatValue(1.5, metrics.Time, ""); got != "1.5ms" {
		t.Error(got)
	}
	if got := formatValue(1.5, metrics.Time, "s"); got != "0.00s" {
		t.Error(got)
	}
	if got := formatValue(4900, metrics.Data, "s"); got != "4.9 kB" {
		t.Error(got)
	}
	if got := formatValue(1.5, metrics.Default, "ms"); got != "1.5" {
		t.Error(got)
	}
}
