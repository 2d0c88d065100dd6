package executor

import (
	"testing"
	"time"
)

func TestFixedLengthDuration(t *testing.T) {
	cases := []struct {
		d, max time.Duration
		want   string
	}{
		{5 * time.Second, 30 * time.Second, "0m05.0s"},
		{5*time.Second + 49*time.Millisecond, 10 * time.Minute, "0m05.0s"},
		{83*time.Second + 420*time.Millisecond, time.Minute, "1m23.4s"},
		{90 * time.Second, 2 * time.Hour, "0h01m30.0s"},
		{26 * time.Hour, 48 * time.Hour, "1d02h00m00.0s"},
		{2 * time.Hour, time.Minute, "2h00m00.0s"}, // grows rather than lies
		{-time.Second, time.Minute, "-0m01.0s"},
	}
	for _, c := range cases {
		if got := FixedLengthDuration(c.d, c.max); got != c.want {
			t.Errorf("FixedLengthDuration(%v, %v) = %q, want %q", c.d, c.max, got, c.want)
		}
	}
	if got := padCount(50, 100); got != "050/100" {
		t.Errorf("padCount = %q", got)
	}
	marks := ""
	for _, s := range []Status{StatusRunning, StatusWaiting, StatusStopping, StatusInterrupted, StatusDone} {
		marks += s.Mark()
	}
	if marks != " •↓✗✓" {
		t.Errorf("marks = %q", marks)
	}
}
