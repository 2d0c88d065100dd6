package freon

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var reportTime = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// specReport holds the numbers of the concrete rendering in docs/ozone-echo.md#console-report.
var specReport = reportData{
	Timer: timerSnapshot{
		Name: timerName, Count: 1000, MeanRate: 1183.4127,
		Min: 0.52, Max: 14.87, Mean: 0.8149, StdDev: 0.4661, Median: 0.74,
		P75: 0.855, P95: 1.2149, P98: 1.63, P99: 2.05, P999: 14.87,
	},
	TotalSeconds: 1, Successes: 1000, NumberOfTests: 1000,
}

// Byte for byte the example of docs/ozone-echo.md#console-report.
const specConsole = `1/2/26, 3:04:05 PM =============================================================

-- Timers ----------------------------------------------------------------------
rpc-payload
             count = 1000
         mean rate = 1183.41 calls/second
     1-minute rate = 0.00 calls/second
     5-minute rate = 0.00 calls/second
    15-minute rate = 0.00 calls/second
               min = 0.52 milliseconds
               max = 14.87 milliseconds
              mean = 0.81 milliseconds
            stddev = 0.47 milliseconds
            median = 0.74 milliseconds
              75% <= 0.86 milliseconds
              95% <= 1.21 milliseconds
              98% <= 1.63 milliseconds
              99% <= 2.05 milliseconds
            99.9% <= 14.87 milliseconds


Total execution time (sec): 1
Failures: 0
Successful executions: 1000
`

func TestConsoleReportSpecExample(t *testing.T) {
	var buf bytes.Buffer
	if err := writeConsoleReport(&buf, reportTime, specReport, consoleOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != specConsole {
		t.Errorf("console report:\n%s\nwant:\n%s", got, specConsole)
	}
	for i, line := range strings.SplitN(specConsole, "\n", 4)[:3] {
		if line != "" && len(line) != consoleWidth {
			t.Errorf("banner line %d has %d characters", i, len(line))
		}
	}
}

func TestConsoleBannerJDK20(t *testing.T) {
	var buf bytes.Buffer
	writeConsoleReport(&buf, time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), specReport, consoleOptions{NarrowNoBreakSpace: true})
	banner, _, _ := strings.Cut(buf.String(), "\n")
	want := "12/31/26, 11:59:59\u202fPM " + strings.Repeat("=", 80-21-1)
	if banner != want {
		t.Errorf("banner %q, want %q", banner, want)
	}
}

// A whole run on a fake clock: one worker, twelve tasks of exactly one second, the eighth
// failing, reported when the run ends (12 s): two 5-second ticks have passed, the third
// interval's completions are not in the moving averages yet.
func fakeRun(t *testing.T) (*Report, time.Time) {
	t.Helper()
	clock := newFakeClock()
	res := mustRun(t, context.Background(), runConfig{Threads: 1, NumberOfTests: 12, FailAtEnd: true, Clock: clock},
		func(_ context.Context, id int) Outcome {
			clock.Advance(time.Second)
			if id == 7 {
				return Outcome{Latency: time.Second, Err: errors.New("boom")}
			}
			return Outcome{Latency: time.Second}
		})
	return res, clock.Now()
}

const fakeRunConsole = `1/2/26, 3:04:17 PM =============================================================

-- Timers ----------------------------------------------------------------------
rpc-payload
             count = 12
         mean rate = 1.00 calls/second
     1-minute rate = 0.82 calls/second
     5-minute rate = 0.80 calls/second
    15-minute rate = 0.80 calls/second
               min = 1000.00 milliseconds
               max = 1000.00 milliseconds
              mean = 1000.00 milliseconds
            stddev = 0.00 milliseconds
            median = 1000.00 milliseconds
              75% <= 1000.00 milliseconds
              95% <= 1000.00 milliseconds
              98% <= 1000.00 milliseconds
              99% <= 1000.00 milliseconds
            99.9% <= 1000.00 milliseconds


Total execution time (sec): 12
Failures: 1
Successful executions: 11
Expected 12 --number-of-tests objects!, successfully executed 11
`

func TestConsoleReportFakeRun(t *testing.T) {
	res, at := fakeRun(t)
	var buf bytes.Buffer
	if err := writeConsoleReport(&buf, at, res.reportAt(at), consoleOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != fakeRunConsole {
		t.Errorf("console report:\n%s\nwant:\n%s", got, fakeRunConsole)
	}
}

const fakeRunLog = `2026-01-02 15:04:17,000 [shutdown-hook-0] INFO metrics: type=TIMER, name=rpc-payload, count=12, min=1000.0, max=1000.0, mean=1000.0, stddev=0.0, median=1000.0, p75=1000.0, p95=1000.0, p98=1000.0, p99=1000.0, p999=1000.0, mean_rate=1.0, m1=0.8159911170741354, m5=0.8033057092356766, m15=0.8011080303990207, rate_unit=events/second, duration_unit=milliseconds
2026-01-02 15:04:17,000 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Total execution time (sec): 12
2026-01-02 15:04:17,000 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Failures: 1
2026-01-02 15:04:17,000 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Successful executions: 11
2026-01-02 15:04:17,000 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Expected 12 --number-of-tests objects!, successfully executed 11
`

func TestLogReportFakeRun(t *testing.T) {
	res, at := fakeRun(t)
	var buf bytes.Buffer
	clock := &fakeClock{t: at}
	if err := writeLogReport(NewLogWriter(&buf, clock), res.reportAt(at)); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != fakeRunLog {
		t.Errorf("log report:\n%s\nwant:\n%s", got, fakeRunLog)
	}
}

func TestLogLines(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogWriter(&buf, &fakeClock{t: reportTime.Add(123 * time.Millisecond)})
	l.Log(ThreadMain, LevelInfo, LoggerBaseFreon, startMessage("", 1))
	l.Log(ThreadMain, LevelInfo, LoggerBaseFreon, startMessage("abc", 1000))
	l.Log(ThreadMain, LevelWarn, LoggerDNEcho, "Read only is not set to true for GRPC, setting it to true")
	l.Log(workerThread(0), LevelError, LoggerBaseFreon, errorMessage(5), "java.io.IOException: x")
	l.Log(ThreadProgress, LevelInfo, LoggerProgress, progressLogMessage(1, 3))
	want := `2026-01-02 15:04:05,123 [main] INFO freon.BaseFreonGenerator: Executing test with prefix '' and number-of-tests 1
2026-01-02 15:04:05,123 [main] INFO freon.BaseFreonGenerator: Executing test with prefix abc and number-of-tests 1000
2026-01-02 15:04:05,123 [main] WARN freon.DNRPCLoadGenerator: Read only is not set to true for GRPC, setting it to true
2026-01-02 15:04:05,123 [pool-1-thread-1] ERROR freon.BaseFreonGenerator: Error on executing task 5
java.io.IOException: x
2026-01-02 15:04:05,123 [Thread-1] INFO freon.ProgressBar: Progress: 33.33 % (1 out of 3)
`
	if got := buf.String(); got != want {
		t.Errorf("log lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestReportNoteWhenApproximate(t *testing.T) {
	rep := specReport
	rep.Note = "percentiles are approximate"
	var con, log bytes.Buffer
	writeConsoleReport(&con, reportTime, rep, consoleOptions{})
	writeLogReport(NewLogWriter(&log, &fakeClock{t: reportTime}), rep)
	if !strings.HasPrefix(con.String(), "Note: percentiles are approximate\n1/2/26") {
		t.Errorf("console: %q", con.String()[:60])
	}
	if !strings.Contains(log.String(), "WARN dnecho.freon: percentiles are approximate\n") {
		t.Errorf("log: %q", log.String())
	}
}
