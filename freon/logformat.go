package freon

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Logger names as log4j's %c{2} prints them for the classes freon logs from.
const (
	LoggerBaseFreon = "freon.BaseFreonGenerator"
	LoggerProgress  = "freon.ProgressBar"
	LoggerDNEcho    = "freon.DNRPCLoadGenerator"
	// LoggerMetrics is Dropwizard Slf4jReporter's default logger.
	LoggerMetrics = "metrics"
	// LoggerDNEchoNotes is ours, for lines freon has no counterpart for.
	LoggerDNEchoNotes = "dnecho.freon"
)

// Thread names as the JVM would show them in [%t].
const (
	// ThreadMain logs the start line and option warnings.
	ThreadMain = "main"
	// ThreadReport runs freon's report hook: Ozone's ShutdownHookManager executes hooks on a
	// single-thread executor named "shutdown-hook-%01d" (apache/ozone: hadoop-hdds/common/
	// src/main/java/org/apache/hadoop/ozone/util/ShutdownHookManager.java).
	ThreadReport = "shutdown-hook-0"
	// ThreadProgress stands for the progress bar's unnamed thread. The JVM numbers unnamed
	// threads globally, so the real number depends on what started before; this is a guess.
	ThreadProgress = "Thread-1"
)

// workerThread names worker i (0-based) like a thread of Executors.newFixedThreadPool; the
// pool number is JVM-global, so 1 is a guess.
func workerThread(i int) string {
	return fmt.Sprintf("pool-1-thread-%d", i+1)
}

// Log levels as log4j's %p prints them.
const (
	LevelInfo  = "INFO"
	LevelWarn  = "WARN"
	LevelError = "ERROR"
)

// LogWriter writes log4j-style lines, "%d{ISO8601} [%t] %p %c{2}: %m%n", the layout of
// Ozone's shell log4j.properties (apache/ozone: hadoop-ozone/dist/src/shell/conf/
// log4j.properties). It is safe for concurrent use; each line is one Write.
type LogWriter struct {
	mu    sync.Mutex
	w     io.Writer
	clock Clock
}

// NewLogWriter returns a LogWriter on w (stderr for freon) stamping lines with clock
// (SystemClock when nil), in the clock's location.
func NewLogWriter(w io.Writer, clock Clock) *LogWriter {
	if clock == nil {
		clock = SystemClock
	}
	return &LogWriter{w: w, clock: clock}
}

// Log writes one line. Extra lines (a stack trace, an error's text) follow it verbatim.
func (l *LogWriter) Log(thread, level, logger, msg string, extra ...string) error {
	var b strings.Builder
	b.WriteString(l.clock.Now().Format("2006-01-02 15:04:05,000"))
	fmt.Fprintf(&b, " [%s] %s %s: %s\n", thread, level, logger, msg)
	for _, e := range extra {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := io.WriteString(l.w, b.String())
	return err
}

// startMessage is freon's first log line of a run; an empty prefix prints as ”.
func startMessage(prefix string, numberOfTests int64) string {
	if prefix == "" {
		prefix = "''"
	}
	return fmt.Sprintf("Executing test with prefix %s and number-of-tests %d", prefix, numberOfTests)
}

// errorMessage is freon's ERROR line for a failed task.
func errorMessage(taskID int) string {
	return fmt.Sprintf("Error on executing task %d", taskID)
}

// timerLogMessage is Dropwizard 3.2.6 Slf4jReporter's line for a timer, with every double in
// Java's Double.toString form.
func timerLogMessage(t timerSnapshot) string {
	d := formatJavaDouble
	return fmt.Sprintf("type=TIMER, name=%s, count=%d, min=%s, max=%s, mean=%s, stddev=%s, median=%s, "+
		"p75=%s, p95=%s, p98=%s, p99=%s, p999=%s, mean_rate=%s, m1=%s, m5=%s, m15=%s, "+
		"rate_unit=events/second, duration_unit=milliseconds",
		t.Name, t.Count, d(t.Min), d(t.Max), d(t.Mean), d(t.StdDev), d(t.Median),
		d(t.P75), d(t.P95), d(t.P98), d(t.P99), d(t.P999),
		d(t.MeanRate), d(t.OneMinuteRate), d(t.FiveMinuteRate), d(t.FifteenMinuteRate))
}

// writeLogReport logs the non-interactive report of docs/ozone-echo.md#log-report from the report
// thread: the metrics line, then freon's summary lines. A histogram fallback adds a WARN
// line from our own logger first.
func writeLogReport(l *LogWriter, rep reportData) error {
	if rep.Note != "" {
		if err := l.Log(ThreadReport, LevelWarn, LoggerDNEchoNotes, rep.Note); err != nil {
			return err
		}
	}
	if err := l.Log(ThreadReport, LevelInfo, LoggerMetrics, timerLogMessage(rep.Timer)); err != nil {
		return err
	}
	for _, line := range summaryLines(rep) {
		if err := l.Log(ThreadReport, LevelInfo, LoggerBaseFreon, line); err != nil {
			return err
		}
	}
	return nil
}
