// Package freon reproduces `ozone freon dn-echo` as a library: its options and validation,
// its runner semantics (apache/ozone: hadoop-ozone/freon/src/main/java/org/apache/hadoop/
// ozone/freon/BaseFreonGenerator.java and DNRPCLoadGenerator.java), and its two report
// formats byte for byte (ozone-echo.md §6). The task that is run is injected, so the package
// knows nothing about gRPC or Ozone; it parses no flags, handles no signals and never exits.
package freon

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/dnecho/dnecho/ozone/config"
)

// Option defaults, as freon declares them.
const (
	DefaultNumberOfTests = 1000
	DefaultThreads       = 10
	DefaultClients       = 1
)

// Validation messages, verbatim from freon (the "OM" wording is upstream's, copied from om-echo).
const (
	MsgPayloadReqNegative  = "OM echo request payload size should be positive value or zero."
	MsgPayloadRespNegative = "OM echo response payload size should be positive value or zero."
	MsgInvalidTestNo       = "Invalid command, the testNo must be a positive integer"
	MsgInvalidDuration     = "Incomplete command, the runtime must be given, and must not be negative"
	// MsgReadOnlyForced is freon's WARN (logger freon.DNRPCLoadGenerator) when --read-only
	// is forced on for plain gRPC.
	MsgReadOnlyForced = "Read only is not set to true for GRPC, setting it to true"
	// MsgTestFailed is the error a run with failures ends with (exit status 255).
	MsgTestFailed = "One or more freon test is failed."
)

// Options mirrors every `ozone freon dn-echo` option with freon's names, units and defaults
// (ozone-echo.md §6.2, §6.3). Start from DefaultOptions.
type Options struct {
	NumberOfTests int64  // -n, --number-of-tests
	Threads       int    // -t, --threads, --thread
	Duration      string // --duration, e.g. "30s", "5m", "1h", "7d"; "" for count mode
	FailAtEnd     bool   // -f, --fail-at-end
	Prefix        string // -p, --prefix; random when empty (see ResolvePrefix)

	ContainerID   int64 // --container-id
	PayloadReqKB  int   // --payload-req, KiB
	PayloadRespKB int   // --payload-resp, KiB
	SleepTimeMs   int   // --sleep-time-ms
	Clients       int   // --clients
	ReadOnly      bool  // --read-only
	Ratis         bool  // --ratis

	// UncappedResponse is a dnecho extension: request the full --payload-resp size instead
	// of freon's 2,097,151-byte cap.
	UncappedResponse bool
}

// DefaultOptions returns freon's defaults.
func DefaultOptions() Options {
	return Options{NumberOfTests: DefaultNumberOfTests, Threads: DefaultThreads, Clients: DefaultClients}
}

// Validate checks the options in freon's order and with its messages; the last two checks
// are ours, where freon would fail later with a Java exception.
func (o Options) Validate() error {
	if o.PayloadReqKB < 0 {
		return errors.New(MsgPayloadReqNegative)
	}
	if o.PayloadRespKB < 0 {
		return errors.New(MsgPayloadRespNegative)
	}
	if _, err := o.RunDuration(); err != nil {
		return err
	}
	if o.NumberOfTests <= 0 {
		return errors.New(MsgInvalidTestNo)
	}
	if o.Threads < 1 {
		return fmt.Errorf("invalid --threads %d: must be a positive integer", o.Threads)
	}
	if o.Clients < 1 {
		return fmt.Errorf("invalid --clients %d: must be a positive integer", o.Clients)
	}
	// Checked before any payload is built: freon's own cap (2097151 KB) would have us allocate
	// 2 GiB only for the DataNode's message limit to refuse it.
	if o.PayloadReqKB > MaxMessageKB {
		return fmt.Errorf("invalid --payload-req %d KB: a request must fit the %d KB (32 MiB) message limit of the DataNode's gRPC port", o.PayloadReqKB, MaxMessageKB)
	}
	// Java parses these options as int; larger values do not fit the request's int32 fields.
	if o.SleepTimeMs > math.MaxInt32 || o.SleepTimeMs < math.MinInt32 {
		return fmt.Errorf("invalid --sleep-time-ms %d: must fit a 32-bit integer", o.SleepTimeMs)
	}
	if o.PayloadRespKB > math.MaxInt32 {
		return fmt.Errorf("invalid --payload-resp %d KB: must fit a 32-bit integer", o.PayloadRespKB)
	}
	return nil
}

// MaxMessageKB is the largest gRPC message Ozone's DataNode accepts (32 MiB, ozone-echo.md §3.5),
// in --payload-req units.
const MaxMessageKB = 32 << 10

// RunDuration returns the --duration as freon reads it, or 0 in count mode.
func (o Options) RunDuration() (time.Duration, error) {
	if o.Duration == "" {
		return 0, nil
	}
	d, err := ParseDuration(o.Duration)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, errors.New(MsgInvalidDuration)
	}
	return d, nil
}

// ParseDuration reads a --duration the way freon does (TimeDurationUtil in seconds):
// an integer with an optional ns, us, ms, s, m, h or d suffix (case ignored; no suffix
// means seconds), truncated to whole seconds, so "1500ms" is 1s and "500ms" is 0.
func ParseDuration(s string) (time.Duration, error) {
	d, err := config.ParseHadoopDuration(s, time.Second)
	if err != nil {
		return 0, fmt.Errorf("invalid --duration: %w", err)
	}
	return d, nil
}

// RunConfig turns validated options into the runner's configuration.
func (o Options) RunConfig() (RunConfig, error) {
	if err := o.Validate(); err != nil {
		return RunConfig{}, err
	}
	d, _ := o.RunDuration() // validated above
	return RunConfig{Threads: o.Threads, NumberOfTests: o.NumberOfTests, Duration: d, FailAtEnd: o.FailAtEnd}, nil
}

// EffectiveReadOnly is the readOnly flag sent on the wire: without --ratis freon forces it
// on, and warn reports that it had to (log MsgReadOnlyForced then).
func (o Options) EffectiveReadOnly() (readOnly, warn bool) {
	if o.Ratis {
		return o.ReadOnly, false
	}
	return true, !o.ReadOnly
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
