// Package realkit holds what the end-to-end test packages share: building dnecho once, running a
// command with a hard limit, and, for the real-cluster packages, their TestMain (record the
// outcome) and reading freon's report (Java's and dnecho's log layout).
package realkit

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realozone"
	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// Build builds the dnecho binary into a new temp dir; remove the dir when done. It builds as `make
// build` does, so that `dnecho version` reports what it does for a user; without make,
// -buildvcs=auto (over a GOFLAGS=-buildvcs=false) lets Go stamp the revision.
func Build() (bin, dir string, err error) {
	dir, err = os.MkdirTemp("", "dnecho-bin-")
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "dnecho")
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, filepath.Join(root, "cmd", "dnecho"))
	if _, err := exec.LookPath("make"); err == nil {
		build = exec.Command("make", "--no-print-directory", "-s", "-C", root, "build", "BIN="+bin)
	}
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("build dnecho: %v\n%s", err, out)
	}
	return bin, dir, nil
}

// Main is the body of a real-cluster package's TestMain: it builds dnecho into *bin, runs the
// tests, calls finish with their exit code (to stop the package's cluster and keep or remove its
// files) and, when finish says a cluster started, appends the outcome for pkg and cluster to the
// ReportEnv file. It returns the code to exit with. Under -short it builds nothing: every test
// starts a real cluster and skips.
func Main(m *testing.M, bin *string, pkg, cluster string, finish func(code int) (started bool)) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	b, dir, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = b
	start := time.Now()
	code := m.Run()
	if finish(code) {
		record(pkg, cluster, code, time.Since(start))
	}
	return code
}

// TestLog writes progress lines into a test's log.
type TestLog struct{ T testing.TB }

func (l TestLog) Write(p []byte) (int, error) {
	l.T.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Container creates a new RATIS/THREE container (SCM waits for an open pipeline first).
func Container(t testing.TB, c *realozone.Cluster) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, err := c.CreateContainer(ctx)
	if err != nil {
		t.Fatalf("%v\nscm log:\n%s", err, c.LogTail("scm", 20))
	}
	return id
}

// Result is what one command did.
type Result struct {
	Code int
	Out  string // stdout and stderr
	Took time.Duration
}

// Run runs cmd with a hard limit, so a hang fails the test.
func Run(t testing.TB, cmd *exec.Cmd, limit time.Duration) Result {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, took, err := WaitLimit(cmd, limit)
	if err != nil {
		t.Fatalf("%v\n%s", err, Tail(out.String(), 30))
	}
	return Result{Out: out.String(), Code: code, Took: took}
}

// WaitLimit waits for the started cmd to exit and returns its exit code and how long the wait
// took; after limit it kills cmd and returns an error saying so, as for any other failure to run.
// It is the one hard limit of the end-to-end tests: a hang fails the test, never the suite.
func WaitLimit(cmd *exec.Cmd, limit time.Duration) (code int, took time.Duration, err error) {
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-done
		return -1, time.Since(start), fmt.Errorf("%s: still running after %s", strings.Join(cmd.Args, " "), limit)
	}
	took = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), took, nil
	}
	return 0, took, err
}

// Dnecho runs the dnecho binary bin with a hard limit, without $OZONE_CONF_DIR (the args say
// which cluster).
func Dnecho(t testing.TB, bin string, limit time.Duration, args ...string) Result {
	t.Helper()
	testdeps.SkipShort(t, "the dnecho binary")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OZONE_CONF_DIR=")
	return Run(t, cmd, limit)
}

// JavaFreon runs Java `ozone freon ARGS` from the cluster's jars.
func JavaFreon(t testing.TB, c *realozone.Cluster, limit time.Duration, args ...string) Result {
	t.Helper()
	return Run(t, c.Freon(context.Background(), args...), limit)
}

// Report is the part of freon's report the tests compare.
type Report struct {
	Successful, Failures int
	Median, Count        float64
}

var (
	successfulRE = regexp.MustCompile(`Successful executions: (\d+)`)
	failuresRE   = regexp.MustCompile(`Failures: (\d+)`)
	timerRE      = regexp.MustCompile(`name=rpc-payload, count=(\d+),.* median=([0-9.]+),`)
)

// ParseReport reads freon's non-TTY report; it fails the test when a line is missing.
func ParseReport(t testing.TB, r Result) Report {
	t.Helper()
	var rep Report
	m := successfulRE.FindStringSubmatch(r.Out)
	f := failuresRE.FindStringSubmatch(r.Out)
	if m == nil || f == nil {
		t.Fatalf("no freon report (exit %d):\n%s", r.Code, Tail(r.Out, 30))
	}
	rep.Successful, _ = strconv.Atoi(m[1])
	rep.Failures, _ = strconv.Atoi(f[1])
	if tm := timerRE.FindStringSubmatch(r.Out); tm != nil {
		rep.Count, _ = strconv.ParseFloat(tm[1], 64)
		rep.Median, _ = strconv.ParseFloat(tm[2], 64)
	}
	return rep
}

// Tail returns the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ReportEnv names a file to which each real-cluster test package appends one line saying what it
// ran against; `make test` prints it, since go test hides a passing package's output.
const ReportEnv = "DNECHO_REAL_REPORT"

// record appends that line: the package, the Ozone version, the cluster and the outcome.
func record(pkg, cluster string, code int, took time.Duration) {
	path := os.Getenv(ReportEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	outcome := "passed"
	if code != 0 {
		outcome = "FAILED"
	}
	fmt.Fprintf(f, "%s: tests against Apache Ozone %s (%s) %s in %.0f s\n", pkg, realozone.Version, cluster, outcome, took.Seconds())
}
