package freon

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// consoleWidth is Dropwizard ConsoleReporter's line width for banners.
const consoleWidth = 80

// consoleOptions select JVM-dependent details of the interactive report.
type consoleOptions struct {
	// NarrowNoBreakSpace puts U+202F instead of a space before AM/PM in the banner date,
	// as JDK 20 and later print it (CLDR 42 locale data); JDK 17 prints a plain space,
	// which is the default here and what docs/ozone-echo.md#console-report shows.
	NarrowNoBreakSpace bool
}

// consoleDate formats t as Java's DateFormat SHORT date + MEDIUM time in en_US,
// e.g. "1/2/26, 3:04:05 PM".
func consoleDate(t time.Time, opts consoleOptions) string {
	s := t.Format("1/2/06, 3:04:05 PM")
	if opts.NarrowNoBreakSpace {
		s = s[:len(s)-3] + "\u202f" + s[len(s)-2:]
	}
	return s
}

// writeConsoleReport writes the interactive (TTY) report of docs/ozone-echo.md#console-report: the
// Dropwizard 3.2.6 ConsoleReporter layout for the one timer, dated at, then freon's summary
// lines. Only the percentiles differ in meaning from upstream (exact, see LatencyStats); an open
// loop (--rate) adds a "Loop:" line and a histogram fallback a "Note:" line before the banner.
func writeConsoleReport(w io.Writer, at time.Time, rep reportData, opts consoleOptions) error {
	bw := bufio.NewWriter(w)
	if rep.Loop != "" {
		fmt.Fprintf(bw, "Loop: %s\n", rep.Loop)
	}
	if rep.Note != "" {
		fmt.Fprintf(bw, "Note: %s\n", rep.Note)
	}
	writeBanner(bw, consoleDate(at, opts), '=')
	bw.WriteString("\n")
	writeBanner(bw, "-- Timers", '-')
	t := rep.Timer
	fmt.Fprintf(bw, "%s\n", t.Name)
	fmt.Fprintf(bw, "%18s = %d\n", "count", t.Count)
	for _, l := range []struct {
		label string
		v     float64
	}{
		{"mean rate", t.MeanRate}, {"1-minute rate", t.OneMinuteRate},
		{"5-minute rate", t.FiveMinuteRate}, {"15-minute rate", t.FifteenMinuteRate},
	} {
		fmt.Fprintf(bw, "%18s = %s calls/second\n", l.label, formatJavaFixed(l.v, 2))
	}
	for _, l := range []struct {
		label string
		v     float64
	}{{"min", t.Min}, {"max", t.Max}, {"mean", t.Mean}, {"stddev", t.StdDev}, {"median", t.Median}} {
		fmt.Fprintf(bw, "%18s = %s milliseconds\n", l.label, formatJavaFixed(l.v, 2))
	}
	for _, l := range []struct {
		label string
		v     float64
	}{{"75%", t.P75}, {"95%", t.P95}, {"98%", t.P98}, {"99%", t.P99}, {"99.9%", t.P999}} {
		fmt.Fprintf(bw, "%17s <= %s milliseconds\n", l.label, formatJavaFixed(l.v, 2))
	}
	bw.WriteString("\n\n") // one after the timer, one closing the report
	for _, line := range summaryLines(rep) {
		bw.WriteString(line + "\n")
	}
	return bw.Flush()
}

// writeBanner writes s, a space and fill up to consoleWidth characters. Java counts UTF-16
// units; every character we print here is one unit and one rune.
func writeBanner(w *bufio.Writer, s string, fill byte) {
	w.WriteString(s)
	w.WriteByte(' ')
	if n := consoleWidth - utf8.RuneCountInString(s) - 1; n > 0 {
		w.WriteString(strings.Repeat(string(fill), n))
	}
	w.WriteByte('\n')
}

// summaryLines are freon's lines after the metrics report (BaseFreonGenerator.printReport):
// printed to stdout in interactive mode, logged at INFO otherwise.
func summaryLines(rep reportData) []string {
	lines := []string{
		fmt.Sprintf("Total execution time (sec): %d", rep.TotalSeconds),
		fmt.Sprintf("Failures: %d", rep.Failures),
		fmt.Sprintf("Successful executions: %d", rep.Successes),
	}
	if rep.Failures > 0 {
		lines = append(lines, fmt.Sprintf("Expected %d --number-of-tests objects!, successfully executed %d",
			rep.NumberOfTests, rep.Successes))
	}
	return lines
}
