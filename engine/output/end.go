package output

import (
	"time"

	"github.com/dnecho/dnecho/engine/summary"
)

// End is what outputs are told when the test is over and its summary is known.
type End struct {
	// Summary is the end-of-test summary data; nil when the summary is disabled or the front end
	// has none (the freon command).
	Summary *summary.Data
	// Text is the end-of-test report as text, without colours; "" when none.
	Text string
	// Duration is the test run time.
	Duration time.Duration
}

// Finisher is implemented by outputs that need the summary after Stop (the web dashboard's HTML
// report).
type Finisher interface {
	Finish(End) error
}
