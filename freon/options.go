// Package freon reproduces `ozone freon dn-echo` as a library: its options and validation,
// its runner semantics (apache/ozone: hadoop-ozone/freon/src/main/java/org/apache/hadoop/
// ozone/freon/BaseFreonGenerator.java and DNRPCLoadGenerator.java), and its two report
// formats byte for byte (docs/ozone-echo.md). The task that is run is injected, so the package
// knows nothing about gRPC or Ozone; it parses no flags, handles no signals and never exits.
package freon

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dnecho/dnecho/internal/hadoopduration"
)

// Option defaults, as freon declares them.
const (
	DefaultNumberOfTests = 1000
	DefaultThreads       = 10
)

// MaxThreads bounds --threads: each thread is a goroutine with one call in flight and its own
// latency store. freon would start a JVM thread per --threads; beyond a few thousand, more
// concurrency comes from more processes, not more threads in one.
const MaxThreads = 10000

// Validation messages, verbatim from freon.
const (
	MsgInvalidTestNo   = "Invalid command, the testNo must be a positive integer"
	MsgInvalidDuration = "Incomplete command, the runtime must be given, and must not be negative"
	// MsgTestFailed is the error a run with failures ends with (exit status 255).
	MsgTestFailed = "One or more freon test is failed."
)

// Options are freon's runner options (BaseFreonGenerator's), with freon's names, units and
// defaults. Start from DefaultOptions. The options of one generator (dn-echo's container and
// payloads) belong to that generator's front end.
type Options struct {
	NumberOfTests int64  // -n, --number-of-tests
	Threads       int    // -t, --threads, --thread
	Duration      string // --duration, e.g. "30s", "5m", "1h", "7d"; "" for count mode
	FailAtEnd     bool   // -f, --fail-at-end
	Prefix        string // -p, --prefix; random when empty (see ResolvePrefix)
	// Rate is dnecho's --rate (ParseRate: "500", "500/s", "30/m"): start calls at this pace,
	// up to Threads at a time (the open loop); "" for freon's closed loop.
	Rate string
}

// DefaultOptions returns freon's defaults.
func DefaultOptions() Options {
	return Options{NumberOfTests: DefaultNumberOfTests, Threads: DefaultThreads}
}

// Validate checks the options with freon's messages, --threads against MaxThreads and --rate
// with ParseRate.
func (o Options) Validate() error {
	if _, err := o.runDuration(); err != nil {
		return err
	}
	if o.NumberOfTests <= 0 {
		return errors.New(MsgInvalidTestNo)
	}
	if o.Threads < 1 || o.Threads > MaxThreads {
		return fmt.Errorf("invalid --threads %d: want 1 to %d (each thread keeps one call in flight; "+
			"for more concurrency run several processes)", o.Threads, MaxThreads)
	}
	_, err := o.rate()
	return err
}

// Length is how long a run of valid options is expected to last: the --duration, or in count
// mode with --rate the time the last call is due; 0 when nothing says (a closed loop's pace is
// the cluster's).
func (o Options) Length() time.Duration {
	if d, err := o.runDuration(); err != nil || d > 0 {
		return d
	}
	if r, err := o.rate(); err == nil && r.Open() {
		return r.Due(o.NumberOfTests)
	}
	return 0
}

// rate returns the --rate, or the zero Rate for the closed loop.
func (o Options) rate() (Rate, error) {
	if o.Rate == "" {
		return Rate{}, nil
	}
	return ParseRate(o.Rate)
}

// runDuration returns the --duration as freon reads it, or 0 in count mode.
func (o Options) runDuration() (time.Duration, error) {
	if o.Duration == "" {
		return 0, nil
	}
	d, err := parseDuration(o.Duration)
	if err != nil {
		return 0, err
	}
	// freon reads the duration in whole seconds and refuses anything under one ("0", "500ms")
	// with the message it gives a negative one.
	if d <= 0 || strings.HasPrefix(strings.TrimSpace(o.Duration), "-") {
		return 0, errors.New(MsgInvalidDuration)
	}
	return d, nil
}

// parseDuration reads a --duration the way freon does (TimeDurationUtil in seconds):
// an integer with an optional ns, us, ms, s, m, h or d suffix (case ignored; no suffix
// means seconds), truncated to whole seconds, so "1500ms" is 1s and "500ms" is 0.
func parseDuration(s string) (time.Duration, error) {
	d, err := hadoopduration.Parse(s, time.Second)
	if err != nil {
		return 0, fmt.Errorf("invalid --duration: %w", err)
	}
	return d, nil
}

// runConfig turns validated options into the runner's configuration.
func (o Options) runConfig() (runConfig, error) {
	if err := o.Validate(); err != nil {
		return runConfig{}, err
	}
	d, _ := o.runDuration() // validated above
	rate, _ := o.rate()
	return runConfig{Threads: o.Threads, NumberOfTests: o.NumberOfTests, Duration: d, FailAtEnd: o.FailAtEnd, Rate: rate}, nil
}

// envInPrefix matches freon's __NAME__ environment references in a prefix.
var envInPrefix = regexp.MustCompile(`__(.+?)__`)

// prefixAlphabet is what freon's random prefix can contain once lower-cased.
const prefixAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// ResolvePrefix applies freon's prefix rules: an empty prefix becomes 10 random lower-case
// alphanumerics (randIndex(n) returns a value in [0, n)); otherwise each __NAME__ is
// replaced by the environment variable NAME, or by nothing if it is unset.
func ResolvePrefix(prefix string, getenv func(string) string, randIndex func(n int) int) string {
	if prefix == "" {
		b := make([]byte, 10)
		for i := range b {
			b[i] = prefixAlphabet[randIndex(len(prefixAlphabet))]
		}
		return string(b)
	}
	return envInPrefix.ReplaceAllStringFunc(prefix, func(m string) string {
		return getenv(m[2 : len(m)-2])
	})
}
