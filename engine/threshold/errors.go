package threshold

import (
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// ConfigError is an invalid threshold definition: bad syntax, unknown metric, or an aggregation
// the metric's type does not support. The CLI exits with exitcode.InvalidConfig.
type ConfigError struct {
	Key    string // the threshold key as written, e.g. `http_req_duration{status:200}`
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid threshold defined on %s; reason: %s", e.Key, e.Reason)
}

// ExitCode is exitcode.InvalidConfig.
func (e *ConfigError) ExitCode() int { return exitcode.InvalidConfig }

// FailedError reports crossed thresholds, at the end of the test or when an abortOnFail
// threshold stopped it. The CLI exits with exitcode.ThresholdsFailed.
type FailedError struct {
	Metrics []string // names of the metrics (or sub-metrics) with a failed threshold, sorted
	Aborted bool     // an abortOnFail threshold stopped the test during the run
}

// Error gives k6's wording for an end-of-test failure or an abort.
func (e *FailedError) Error() string {
	names := strings.Join(e.Metrics, ", ")
	if e.Aborted {
		return fmt.Sprintf("thresholds on metrics '%s' were crossed; at least one has abortOnFail enabled, stopping test prematurely", names)
	}
	return fmt.Sprintf("thresholds on metrics '%s' have been crossed", names)
}

// ExitCode is exitcode.ThresholdsFailed.
func (e *FailedError) ExitCode() int { return exitcode.ThresholdsFailed }
