package heapfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		floor, live uint64
		want        int
	}{
		{64 * mib, 0, 1600},                 // before the first collection: 4 MiB × 16
		{16 * mib, 0, 400},                  // the same under a 64 MiB limit
		{1024 * mib, 0, maxPercent},         // capped
		{64 * mib, 1 * mib, maxPercent},     // 6300% capped
		{64 * mib, 4 * mib, 1500},           // goal 4 × 16 = 64 MiB
		{64 * mib, 16 * mib, 300},           // goal 64 MiB
		{64 * mib, 40 * mib, basePercent},   // 60% would collect earlier than the default
		{64 * mib, 64 * mib, basePercent},   // at the floor
		{64 * mib, 1024 * mib, basePercent}, // far above it
		{DefaultFloor, 5 * mib, 1180},       // a 32-VU client
	} {
		if got := Percent(tc.floor, tc.live); got != tc.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", tc.floor/mib, tc.live/mib, got, tc.want)
		}
	}
}

// currentPercent reads the GC percent without changing it.
func currentPercent() int {
	p := debug.SetGCPercent(basePercent)
	debug.SetGCPercent(p)
	return p
}

func TestGOGCSetLeavesTheRuntimeAlone(t *testing.T) {
	debug.SetGCPercent(basePercent)
	c := newController(DefaultFloor, func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}, nil)
	if c != nil {
		t.Fatal("a controller started although GOGC is set")
	}
	if got := currentPercent(); got != basePercent {
		t.Errorf("percent %d after Start with GOGC set, want %d", got, basePercent)
	}
}

// TestFollowsTheLiveHeap: after each collection the percent fits the live heap, a heap above the
// floor gets the default percent, and stop puts the default back and ends the adjusting.
func TestFollowsTheLiveHeap(t *testing.T) {
	const floor = 64 << 20
	type adjust struct {
		live    uint64
		percent int
	}
	heard := make(chan adjust, 64)
	c := newController(floor, func(string) string { return "" }, func(live uint64, p int) { heard <- adjust{live, p} })
	if c == nil {
		t.Fatal("no controller without GOGC")
	}
	defer c.stop()
	<-heard // the adjust at start

	// afterGC waits for the adjust that follows a collection (cleanups run on their own goroutine).
	afterGC := func() adjust {
		t.Helper()
		for len(heard) > 0 {
			<-heard
		}
		runtime.GC()
		select {
		case a := <-heard:
			return a
		case <-time.After(10 * time.Second):
			t.Fatal("no adjust after a collection")
			return adjust{}
		}
	}

	small := afterGC()
	if small.live >= floor/2 || small.percent < 100 || small.percent != Percent(floor, small.live) {
		t.Fatalf("small heap: live %d, percent %d, want %d", small.live, small.percent, Percent(floor, small.live))
	}
	if got := currentPercent(); got != small.percent {
		t.Errorf("runtime percent %d, controller applied %d", got, small.percent)
	}
	if small.percent <= basePercent {
		t.Errorf("a %d-byte live heap under a %d-byte floor got percent %d, want more than %d", small.live, floor, small.percent, basePercent)
	}

	big := make([]byte, 2*floor)
	for i := range big {
		big[i] = 1
	}
	large := afterGC()
	runtime.KeepAlive(big)
	if large.live < floor || large.percent != basePercent || currentPercent() != basePercent {
		t.Errorf("heap above the floor: live %d, percent %d (runtime %d), want %d", large.live, large.percent, currentPercent(), basePercent)
	}

	c.stop()
	debug.SetGCPercent(700) // stop must not adjust any more: this survives collections
	runtime.GC()
	runtime.GC()
	select {
	case a := <-heard:
		t.Errorf("adjusted after stop: %+v", a)
	default:
	}
	if got := currentPercent(); got != 700 {
		t.Errorf("percent %d after stop and two collections, want 700 left alone", got)
	}
	debug.SetGCPercent(basePercent)
}

func TestFit(t *testing.T) {
	const mib = 1 << 20
	none := uint64(math.MaxUint64)
	for _, tc := range []struct {
		name   string
		limits []uint64
		want   uint64
	}{
		{"no limit", []uint64{none, none}, 64 * mib},
		{"a large container", []uint64{none, 4096 * mib}, 64 * mib},
		{"a 128 MiB pod", []uint64{none, 128 * mib}, 32 * mib},
		{"GOMEMLIMIT below the cgroup", []uint64{100 * mib, 1024 * mib}, 25 * mib},
		{"a zero reading is no limit", []uint64{0}, 64 * mib},
	} {
		if got := fit(64*mib, tc.limits...); got != tc.want {
			t.Errorf("%s: fit = %d MiB, want %d MiB", tc.name, got/mib, tc.want/mib)
		}
	}
	for in, want := range map[string]uint64{
		"max\n":                 none,
		"9223372036854771712\n": none, // cgroup v1 without a limit
		"134217728\n":           128 * mib,
		"garbage":               none,
	} {
		if got := parseLimit(in); got != want {
			t.Errorf("parseLimit(%q) = %d, want %d", in, got, want)
		}
	}
	base := Fit(64 * mib) // this machine's cgroup may set a limit of its own
	prev := debug.SetMemoryLimit(200 * mib)
	defer debug.SetMemoryLimit(prev)
	if got, want := Fit(64*mib), min(base, 50*mib); got != want {
		t.Errorf("with GOMEMLIMIT=200MiB Fit = %d MiB, want %d", got/mib, want/mib)
	}
}
