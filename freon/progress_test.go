package freon

import (
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	bar := func(blocks, spaces int) string {
		return strings.Repeat("█", blocks) + strings.Repeat(" ", spaces)
	}
	tests := []struct {
		value, max int64
		elapsed    time.Duration
		status     string
		want       string
	}{
		{0, 1000, 0, "", " 0.00% |" + bar(1, 100) + "|  0/1000 Time: 0:00:00|  "},
		{123, 1000, 5 * time.Second, "", " 12.30% |" + bar(13, 88) + "|  123/1000 Time: 0:00:05|  "},
		{1000, 1000, 3723 * time.Second, "", " 100.00% |" + bar(101, 0) + "|  1000/1000 Time: 1:02:03|  "},
		{1, 3, 1500 * time.Millisecond, "", " 33.33% |" + bar(34, 67) + "|  1/3 Time: 0:00:01|  "},
		{50, 100, 0, "busy", " 50.00% |" + bar(17, 17) + "|  50/100 Time: 0:00:00|  busy"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.value, tt.max, tt.elapsed, tt.status); got != tt.want {
			t.Errorf("ProgressLine(%d/%d):\n got %q\nwant %q", tt.value, tt.max, got, tt.want)
		}
	}
	if got := progressLogMessage(2, 3); got != "Progress: 66.67 % (2 out of 3)" {
		t.Error(got)
	}
}

func TestProgressBarInteractiveAtMax(t *testing.T) {
	var out syncBuffer
	p := startProgress(progressConfig{Interactive: true, Out: &out, Max: 10, Value: func() int64 { return 10 }, Clock: newFakeClock()})
	p.shutdown()
	want := "\n\r" + progressLine(10, 10, 0, "") + "\n"
	if got := out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProgressBarTerminateAndRedraw(t *testing.T) {
	var out syncBuffer
	var v atomic.Int64
	p := startProgress(progressConfig{Interactive: true, Out: &out, Max: 10, Value: v.Load, Interval: time.Millisecond})
	testwait.Eventually(t, testwait.Timeout, "three draws", func() bool { return strings.Count(out.String(), "\r") >= 3 })
	v.Store(4)
	p.terminate()
	p.terminate() // idempotent
	got := out.String()
	if !strings.HasPrefix(got, "\n\r 0.00% |") || !strings.HasSuffix(got, "|  4/10 Time: 0:00:00|  \n") {
		t.Errorf("output %q", got)
	}
}

func TestProgressBarLogs(t *testing.T) {
	var out syncBuffer
	var v atomic.Int64
	v.Store(3)
	clock := newFakeClock()
	p := startProgress(progressConfig{Log: NewLogWriter(&out, clock), Max: 4, Value: v.Load, Interval: time.Millisecond})
	testwait.Eventually(t, testwait.Timeout, "a progress line at 3 of 4", func() bool { return strings.Contains(out.String(), "(3 out of 4)") })
	v.Store(4)
	p.shutdown()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if last != "2026-01-02 15:04:05,000 [Thread-1] INFO freon.ProgressBar: Progress: 100.00 % (4 out of 4)" {
		t.Errorf("last line %q", last)
	}
}

// syncBuffer is a goroutine-safe buffer for log output.
type syncBuffer = testkit.SyncBuffer
