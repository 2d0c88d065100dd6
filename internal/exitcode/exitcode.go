// Package exitcode is the one table of the process exit codes dnecho uses. `dnecho run` uses
// k6's codes (grafana/k6 errext/exitcodes/codes.go, the same in k6 v1.x and v2.x);
// `dnecho freon` uses freon's (Java's System.exit(-1), which a shell sees as 255, and 130 after
// Ctrl-C); dnecho's own commands exit with Usage for a bad flag or argument, k6's (run, archive,
// inspect, version) with Failure, k6's -1.
//
// Library packages attach a code to their errors with an `ExitCode() int` method, so only the
// CLI turns errors into a process status.
package exitcode

// Exit codes.
const (
	// OK: the command did what it was asked.
	OK = 0
	// Usage: an unknown flag, a malformed flag value or a wrong number of arguments, for
	// dnecho's own commands (freon, cluster, aggregate).
	Usage = 2

	// ThresholdsFailed: a threshold was crossed, at the end of the test or with abortOnFail.
	ThresholdsFailed = 99
	// SetupTimeout: setup() ran past setupTimeout.
	SetupTimeout = 100
	// TeardownTimeout: teardown() ran past teardownTimeout.
	TeardownTimeout = 101
	// GenericTimeout: another lifecycle function (handleSummary) ran past its timeout.
	GenericTimeout = 102
	// StoppedFromAPI: the test was stopped through the REST API (PATCH /v1/status with
	// stopped: true), as k6-operator does when a TestRun is stopped.
	StoppedFromAPI = 103
	// InvalidConfig: invalid options, scenarios, thresholds, environment or config file.
	InvalidConfig = 104
	// ExternalAbort: the test was stopped from outside (SIGINT, SIGTERM).
	ExternalAbort = 105
	// CannotStartAPI: the REST API could not listen on the address given with --address.
	CannotStartAPI = 106
	// ScriptException: an uncaught exception in the init context, setup() or teardown().
	ScriptException = 107
	// ScriptAborted: the script called exec.test.abort().
	ScriptAborted = 108
	// MarkedAsFailed: the script called exec.test.fail(); the test ran to its end.
	MarkedAsFailed = 110

	// OutputLoss: an output dropped samples and the user asked for that to fail the run
	// (--fail-on-output-loss); k6 has no such code (it only warns), so dnecho picked one above
	// k6's range.
	OutputLoss = 111

	// Interrupted: freon stopped by Ctrl-C (128 + SIGINT), after printing what ran.
	Interrupted = 130
	// Failure: anything else that failed. For freon, a task failed or the command could not run
	// (Java freon's System.exit(-1)); for `dnecho run`, a failure no k6 code describes, such as
	// results that could not be written (k6 also exits with -1 then), and a command line k6's
	// commands refuse.
	Failure = 255
)
