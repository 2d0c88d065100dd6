package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realkit"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// runLimit bounds one `dnecho run` in the end-to-end tests: every script runs for seconds.
const runLimit = 60 * time.Second

// writeRunScript writes a test script into a fresh temp dir and returns its path.
func writeRunScript(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readExport parses a --summary-export file.
func readExport(t *testing.T, path string) summaryExport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("summary export: %v", err)
	}
	var e summaryExport
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("summary export %s: %v\n%s", path, err, b)
	}
	return e
}

// summaryExport is the shape of --summary-export (docs/k6-compat.md#summary-export).
type summaryExport struct {
	RootGroup struct {
		Name   string                     `json:"name"`
		Path   string                     `json:"path"`
		ID     string                     `json:"id"`
		Groups map[string]json.RawMessage `json:"groups"`
		Checks map[string]struct {
			Name   string `json:"name"`
			Path   string `json:"path"`
			ID     string `json:"id"`
			Passes int64  `json:"passes"`
			Fails  int64  `json:"fails"`
		} `json:"checks"`
	} `json:"root_group"`
	Metrics map[string]map[string]any `json:"metrics"`
}

// count returns a Counter's count from the export, or -1.
func (e summaryExport) count(metric string) float64 {
	m, ok := e.Metrics[metric]
	if !ok {
		return -1
	}
	c, _ := m["count"].(float64)
	return c
}

// liveRun is a dnecho command started in the background, to be signalled.
type liveRun struct {
	cmd            *exec.Cmd
	stdout, stderr lockedBuffer
}

func startRun(t *testing.T, args ...string) *liveRun {
	t.Helper()
	return startCmd(t, append([]string{"run"}, args...)...)
}

// startCmd starts any dnecho command in the background.
func startCmd(t *testing.T, args ...string) *liveRun {
	t.Helper()
	return startBinary(t, dnechoBinary(t), nil, args...)
}

// startBinary starts a program (the dnecho binary under some name) with extra environment
// variables in the background.
func startBinary(t *testing.T, path string, env []string, args ...string) *liveRun {
	t.Helper()
	r := &liveRun{cmd: exec.Command(path, args...)}
	r.cmd.Env = append(append(os.Environ(), "OZONE_CONF_DIR="), env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		}
	})
	return r
}

// waitFor waits until the run's output contains s.
func (r *liveRun) waitFor(t *testing.T, s string) {
	t.Helper()
	r.waitOutput(t, fmt.Sprintf("%q in the output", s), func(out string) bool { return strings.Contains(out, s) })
}

// waitForMatch waits until the run's output matches re.
func (r *liveRun) waitForMatch(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	r.waitOutput(t, fmt.Sprintf("a match of %s in the output", re), re.MatchString)
}

// waitOutput waits until the run's output (stdout, then stderr) satisfies cond, failing t with
// both streams.
func (r *liveRun) waitOutput(t *testing.T, what string, cond func(out string) bool) {
	t.Helper()
	if err := testwait.Until(runLimit, what, func() bool { return cond(r.stdout.String() + r.stderr.String()) }); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, r.stdout.String(), r.stderr.String())
	}
}

// wait waits for the process to exit and returns what it did.
func (r *liveRun) wait(t *testing.T) runResult {
	t.Helper()
	code, took, err := realkit.WaitLimit(r.cmd, runLimit)
	if err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, r.stdout.String(), r.stderr.String())
	}
	return runResult{code: code, stdout: r.stdout.String(), stderr: r.stderr.String(), took: took}
}

func (r *liveRun) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// dnechoEnv is dnecho with extra environment variables.
func dnechoEnv(t *testing.T, env []string, args ...string) runResult {
	t.Helper()
	return dnechoWith(t, env, "", args...)
}

// dnechoStdin is dnecho with text on stdin.
func dnechoStdin(t *testing.T, stdin string, args ...string) runResult {
	t.Helper()
	return dnechoWith(t, nil, stdin, args...)
}

func dnechoWith(t *testing.T, env []string, stdin string, args ...string) runResult {
	t.Helper()
	return dnechoWithLimit(t, runLimit, env, stdin, args...)
}

// dnechoEnvLimit is dnechoEnv with another time limit.
func dnechoEnvLimit(t *testing.T, limit time.Duration, env []string, args ...string) runResult {
	t.Helper()
	return dnechoWithLimit(t, limit, env, "", args...)
}

func dnechoWithLimit(t *testing.T, limit time.Duration, env []string, stdin string, args ...string) runResult {
	t.Helper()
	return dnechoBehind(t, nil, limit, env, stdin, args...)
}

// dnechoBehind runs the binary through the program wrap (e.g. a shell that sets a limit and execs
// it; nil for none) with a hard time limit, so a hang fails the test.
func dnechoBehind(t *testing.T, wrap []string, limit time.Duration, env []string, stdin string, args ...string) runResult {
	t.Helper()
	argv := append(append(append([]string(nil), wrap...), dnechoBinary(t)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "OZONE_CONF_DIR="), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, took, err := realkit.WaitLimit(cmd, limit)
	r := runResult{code: code, stdout: out.String(), stderr: errb.String(), took: took}
	if err != nil {
		t.Fatalf("%v\n%s", err, r.all())
	}
	return r
}

// lockedBuffer is a goroutine-safe buffer for log output.
type lockedBuffer = testkit.SyncBuffer
