package realcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/realozone"
)

// binPath is the dnecho binary TestMain builds.
var binPath string

// shared is the one insecure cluster the tests of this package use, started by the first test
// that needs it and stopped by TestMain.
var shared struct {
	once sync.Once
	dir  string
	c    *realozone.Cluster
	err  error
	took time.Duration
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dnecho-real-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "dnecho")
	if out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/dnecho").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build dnecho: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if shared.c != nil {
		shared.c.Stop()
	}
	if code == 0 {
		os.RemoveAll(shared.dir)
	} else if shared.dir != "" {
		fmt.Fprintf(os.Stderr, "real cluster logs kept in %s/logs\n", shared.dir)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// cluster returns the shared real cluster, starting it on first use.
func cluster(t *testing.T) *realozone.Cluster {
	t.Helper()
	realozone.Require(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "real-ozone-")
		if shared.err != nil {
			return
		}
		start := time.Now()
		shared.c, shared.err = realozone.Start(context.Background(), realozone.Options{Dir: shared.dir, Progress: testLog{t}})
		shared.took = time.Since(start)
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "real cluster: Apache Ozone %s ready in %.0f s (SCM %s)\n", realozone.Version, shared.took.Seconds(), shared.c.SCM)
		}
	})
	if shared.err != nil {
		t.Fatalf("%v", shared.err)
	}
	return shared.c
}

// testLog writes progress lines into the log of the test that started the cluster.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// container creates a new RATIS/THREE container, first waiting for an open pipeline (a test
// before may have closed the old one).
func container(t *testing.T, c *realozone.Cluster) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id, err := c.CreateContainer(ctx)
	if err != nil {
		t.Fatalf("%v\nscm log:\n%s", err, c.LogTail("scm", 20))
	}
	return id
}

// result is what one command did.
type result struct {
	code int
	out  string // stdout and stderr
	took time.Duration
}

// run runs cmd with a hard limit, so a hang fails the test.
func run(t *testing.T, cmd *exec.Cmd, limit time.Duration) result {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: still running after %s\n%s", strings.Join(cmd.Args, " "), limit, tail(out.String(), 30))
	}
	r := result{out: out.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// dnecho runs the dnecho binary.
func dnecho(t *testing.T, limit time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "OZONE_CONF_DIR=")
	return run(t, cmd, limit)
}

// javaFreon runs Java `ozone freon ARGS` from the cluster's jars.
func javaFreon(t *testing.T, c *realozone.Cluster, limit time.Duration, args ...string) result {
	t.Helper()
	return run(t, c.Freon(context.Background(), args...), limit)
}

// report is the part of freon's report (Java's or dnecho's log layout) the tests compare.
type report struct {
	successful, failures int
	median, count        float64
}

var (
	successfulRE = regexp.MustCompile(`Successful executions: (\d+)`)
	failuresRE   = regexp.MustCompile(`Failures: (\d+)`)
	timerRE      = regexp.MustCompile(`name=rpc-payload, count=(\d+),.* median=([0-9.]+),`)
)

// parseReport reads freon's non-TTY report; it fails the test when a line is missing.
func parseReport(t *testing.T, r result) report {
	t.Helper()
	var rep report
	m := successfulRE.FindStringSubmatch(r.out)
	f := failuresRE.FindStringSubmatch(r.out)
	if m == nil || f == nil {
		t.Fatalf("no freon report (exit %d):\n%s", r.code, tail(r.out, 30))
	}
	rep.successful, _ = strconv.Atoi(m[1])
	rep.failures, _ = strconv.Atoi(f[1])
	if tm := timerRE.FindStringSubmatch(r.out); tm != nil {
		rep.count, _ = strconv.ParseFloat(tm[1], 64)
		rep.median, _ = strconv.ParseFloat(tm[2], 64)
	}
	return rep
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
