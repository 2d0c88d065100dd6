package freon

import (
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Rate
	}{
		{"500", Rate{500, time.Second}},
		{"500/s", Rate{500, time.Second}},
		{"30/m", Rate{30, time.Minute}},
		{"1", Rate{1, time.Second}},
		{"1/m", Rate{1, time.Minute}},
	} {
		got, err := ParseRate(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "abc", "5/h", "5/", "/s", "1.5", "0/m", "5/S", "5 /s", "99999999999999999999"} {
		_, err := ParseRate(bad)
		if err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "invalid --rate ") || !strings.Contains(msg, "want N or N/s (calls started per second) or N/m (per minute)") ||
			strings.Contains(msg, "\n") {
			t.Errorf("ParseRate(%q): %q names neither --rate nor the accepted forms on one line", bad, msg)
		}
	}
}

func TestRateString(t *testing.T) {
	for _, s := range []string{"500/s", "30/m", "1/s"} {
		if r, _ := ParseRate(s); r.String() != s {
			t.Errorf("%q prints as %q", s, r.String())
		}
	}
	if r, _ := ParseRate("7"); r.String() != "7/s" {
		t.Errorf("plain 7 prints as %q", r.String())
	}
}

// Due times are i·Per/Calls, exactly, however long the run.
func TestRateDue(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		rate Rate
		i    int64
		want time.Duration
	}{
		{Rate{500, time.Second}, 0, 0},
		{Rate{500, time.Second}, 1, 2 * ms},
		{Rate{500, time.Second}, 500, time.Second},
		{Rate{3, time.Second}, 1, 333333333},                 // rounded down, not accumulated
		{Rate{3, time.Second}, 3_000_000, 1e6 * time.Second}, // no drift after a million seconds
		{Rate{30, time.Minute}, 1, 2 * time.Second},
		{Rate{7, time.Minute}, 7, time.Minute},
		{Rate{1_000_000, time.Second}, 1 << 40, (1 << 40) * time.Microsecond}, // i·Per overflows 64 bits
	} {
		if got := tt.rate.Due(tt.i); got != tt.want {
			t.Errorf("%v: Due(%d) = %v, want %v", tt.rate, tt.i, got, tt.want)
		}
	}
}

// Pace is a pure function of (elapsed, hits): wait until the next call's due time, or start it
// at once and say how late it is.
func TestRatePace(t *testing.T) {
	ms := time.Millisecond
	r := Rate{100, time.Second} // due every 10 ms
	for _, tt := range []struct {
		elapsed    time.Duration
		hits       int64
		wait, late time.Duration
	}{
		{0, 0, 0, 0},                // the first call starts at once
		{0, 1, 10 * ms, 0},          // the second is due 10 ms in
		{4 * ms, 1, 6 * ms, 0},      // part of the way there
		{10 * ms, 1, 0, 0},          // exactly on time
		{13 * ms, 1, 0, 3 * ms},     // a worker came free 3 ms after it was due
		{1000 * ms, 5, 0, 950 * ms}, // behind by a stall: call 5 was due at 50 ms
		{50 * ms, 100, 950 * ms, 0}, // ahead: hits do not advance the clock
	} {
		wait, late := r.Pace(tt.elapsed, tt.hits)
		if wait != tt.wait || late != tt.late {
			t.Errorf("Pace(%v, %d) = wait %v late %v; want %v, %v", tt.elapsed, tt.hits, wait, late, tt.wait, tt.late)
		}
	}
}

// dueBefore counts the calls a duration run has due: the least i with Due(i) ≥ d.
func TestRateDueBefore(t *testing.T) {
	for _, tt := range []struct {
		rate Rate
		d    time.Duration
		want int64
	}{
		{Rate{10, time.Second}, time.Second, 10},     // 0, 100, ..., 900 ms
		{Rate{10, time.Second}, time.Second + 1, 11}, // 1000 ms is before 1 s + 1 ns
		{Rate{3, time.Second}, time.Second, 3},       // 0, 333.3, 666.6 ms
		{Rate{7, time.Minute}, time.Minute, 7},       // 0, 8.57 s, ...
		{Rate{1, time.Minute}, 30 * time.Second, 1},  // only the first
		{Rate{500, time.Second}, 0, 0},               // nothing before the start
		{Rate{1_000_000, time.Second}, 7 * 24 * time.Hour, 604_800_000_000},
	} {
		if got := tt.rate.dueBefore(tt.d); got != tt.want {
			t.Errorf("%v: dueBefore(%v) = %d, want %d", tt.rate, tt.d, got, tt.want)
		}
	}
}
