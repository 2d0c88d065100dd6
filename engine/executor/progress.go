package executor

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/scenario"
)

// Status is where a scenario is in its life, for the progress display's status mark.
type Status int32

// Scenario statuses.
const (
	StatusWaiting     Status = iota // before its startTime
	StatusRunning                   // starting iterations
	StatusStopping                  // past its regular end, iterations finishing (gracefulStop)
	StatusDone                      // ended with all its work done
	StatusInterrupted               // stopped early, or ended with work left (progress < 1)
)

// Mark is the status character of the progress bar, as k6 draws it: space, •, ↓, ✓ or ✗.
func (s Status) Mark() string {
	switch s {
	case StatusWaiting:
		return "•"
	case StatusStopping:
		return "↓"
	case StatusDone:
		return "✓"
	case StatusInterrupted:
		return "✗"
	}
	return " "
}

// String names the status ("running", "done", …).
func (s Status) String() string {
	switch s {
	case StatusWaiting:
		return "waiting"
	case StatusRunning:
		return "running"
	case StatusStopping:
		return "stopping"
	case StatusDone:
		return "done"
	case StatusInterrupted:
		return "interrupted"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// ScenarioProgress is a snapshot of one scenario for the progress display and exec.scenario.
type ScenarioProgress struct {
	Name     string
	Executor scenario.Type
	Status   Status
	// Fraction is the share done, 0..1: iterations for the iteration-based executors, time for
	// the others.
	Fraction float64
	// Elapsed is the time since the scenario started (frozen at its end).
	Elapsed time.Duration
	// Completed and Interrupted count the scenario's finished iterations.
	Completed, Interrupted int64
	// Right holds the bar's right-hand parts, to be joined by two spaces.
	Right []string
}

// Progress returns a snapshot of every scenario, in run-header order. Safe for concurrent use.
func (s *Scheduler) Progress() []ScenarioProgress {
	out := make([]ScenarioProgress, len(s.scenarios))
	for i, sc := range s.scenarios {
		out[i] = sc.snapshot()
	}
	return out
}

func (sc *scenarioRun) snapshot() ScenarioProgress {
	st := Status(sc.status.Load())
	if st == StatusRunning {
		sc.mu.Lock()
		regular := sc.regularCtx
		sc.mu.Unlock()
		if regular != nil && regular.Err() != nil {
			st = StatusStopping
		}
	}
	el := sc.elapsed()
	f, right := sc.driver.progress(el)
	return ScenarioProgress{
		Name:        sc.base.Name,
		Executor:    sc.base.Executor,
		Status:      st,
		Fraction:    f,
		Elapsed:     el,
		Completed:   sc.completed.Load(),
		Interrupted: sc.interrupted.Load(),
		Right:       right,
	}
}

const day = 24 * time.Hour

// FixedLengthDuration formats d (rounded to 0.1 s) with a width fixed by limit, so the progress
// display does not jump: "0m05.0s" when limit is under an hour, "0h00m05.0s" under a day,
// "0d00h00m05.0s" beyond.
func FixedLengthDuration(d, limit time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	d = d.Round(100 * time.Millisecond)
	limit = limit.Round(100 * time.Millisecond)
	days, rest := d/day, d%day
	hours, rest := rest/time.Hour, rest%time.Hour
	mins, rest := rest/time.Minute, rest%time.Minute
	secs, rest := rest/time.Second, rest%time.Second
	tenths := rest / (100 * time.Millisecond)
	switch {
	case limit >= day || days > 0:
		return fmt.Sprintf("%s%dd%02dh%02dm%02d.%ds", sign, days, hours, mins, secs, tenths)
	case limit >= time.Hour || hours > 0:
		return fmt.Sprintf("%s%dh%02dm%02d.%ds", sign, hours, mins, secs, tenths)
	}
	return fmt.Sprintf("%s%dm%02d.%ds", sign, mins, secs, tenths)
}

// timePart is "<elapsed>/<total>", elapsed capped at total.
func timePart(elapsed, total time.Duration) string {
	return FixedLengthDuration(min(elapsed, total), total) + "/" + total.String()
}

// padCount zero-pads n to the width of of ("050/100").
func padCount(n, of int64) string {
	return fmt.Sprintf("%0*d/%d", len(strconv.FormatInt(of, 10)), n, of)
}

func vusPart(n int64) string { return fmt.Sprintf("%d VUs", n) }

func clamp01(f float64) float64 { return min(max(f, 0), 1) }

func timeFraction(elapsed, total time.Duration) float64 {
	if total <= 0 {
		return 1
	}
	return clamp01(float64(elapsed) / float64(total))
}
