package output

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// Account is what an output did with the samples it received, reported in one line at the end of
// the run. For outputs that write every sample (json, csv, influxdb) Written counts samples in
// acknowledged writes. Outputs that send aggregates (Prometheus remote write, OpenTelemetry) count
// a sample as written once a write holding its effect was acknowledged; the samples after the
// last acknowledged write are dropped.
type Account struct {
	Received int64 // samples handed to the output
	Written  int64 // samples that reached the destination
	Dropped  int64 // samples that never will
	Err      error // the write errors, if any: the first (the cause), and the last when it differs
}

// Lost reports whether the output dropped samples.
func (a Account) Lost() bool { return a.Dropped > 0 }

// Accounter is implemented by outputs that know what they wrote and dropped; the others are
// accounted by their Stop error alone.
type Accounter interface {
	Account() Account
}

// ExitDataLost is the process exit code of a run whose outputs dropped samples, when the user
// asked for losses to fail the run (by default, as in k6, they do not change the exit code).
const ExitDataLost = exitcode.OutputLoss

// LossError is the error of a run whose outputs dropped samples. Its exit code is ExitDataLost.
type LossError struct {
	Outputs []string // descriptions of the outputs that dropped samples
}

// Error implements error.
func (e *LossError) Error() string {
	return "outputs dropped samples: " + strings.Join(e.Outputs, "; ")
}

// ExitCode is ExitDataLost.
func (e *LossError) ExitCode() int { return ExitDataLost }

// Line is the end-of-run line of one output: what it wrote and what it dropped.
func (a Account) Line(description string) string {
	s := fmt.Sprintf("output %s: %s samples written, %s dropped", description, Thousands(a.Written), Thousands(a.Dropped))
	if a.Err != nil {
		s += " (error: " + a.Err.Error() + ")"
	}
	return s
}

// AccountOf returns o's account given the number of samples it received and its Stop error: the
// output's own account when it keeps one, else every sample is written unless Stop failed.
func AccountOf(o Output, received int64, stopErr error) Account {
	var a Account
	if acc, ok := o.(Accounter); ok {
		a = acc.Account()
	} else if stopErr == nil {
		a.Written = received
	} else {
		a.Dropped = received
	}
	a.Received = received
	if stopErr != nil {
		a.Err = errors.Join(a.Err, stopErr)
		if a.Written+a.Dropped < received {
			a.Dropped = received - a.Written
		}
	}
	return a
}

// Thousands prints n with thousands separators (12,345,678).
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
