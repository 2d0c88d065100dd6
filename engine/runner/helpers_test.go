package runner

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRunOutput is what one Run did.
type testRunOutput struct {
	res    Report
	err    error
	code   int
	stdout string
	logs   string
	took   time.Duration
}

// writeScript writes a script into a temp dir and returns its path.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runScript runs src with the given command-line layer. stop, when set, runs beside the test
// with the functions that end the graceful and the hard contexts, and logged, which waits until
// the run has logged a text (false after a minute without it).
func runScript(t *testing.T, src string, cli options.Options, tweak func(*Config), stop func(soft, hard context.CancelFunc, logged func(string) bool)) testRunOutput {
	t.Helper()
	soft, cancelSoft := context.WithCancel(context.Background())
	hard, cancelHard := context.WithCancel(context.Background())
	defer cancelSoft()
	defer cancelHard()
	var stdout bytes.Buffer
	logs := &syncBuffer{}
	cfg := Config{
		Script: writeScript(t, "test.js", src),
		Layers: options.Layers{CLI: cli},
		Stdout: &stdout, Stderr: &stdout,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Hard:   hard,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	stopped := make(chan struct{})
	if stop != nil {
		logged := func(text string) bool {
			// Until, not Eventually: stop runs on its own goroutine, where t.Fatal must not be called.
			if err := testwait.Until(time.Minute, fmt.Sprintf("the run logs %q", text), func() bool {
				return strings.Contains(logs.String(), text)
			}); err != nil {
				t.Error(err)
				return false
			}
			return true
		}
		go func() {
			defer close(stopped)
			stop(cancelSoft, cancelHard, logged)
		}()
	} else {
		close(stopped)
	}
	start := time.Now()
	res, err := Run(soft, cfg)
	took := time.Since(start)
	cancelSoft()
	cancelHard()
	<-stopped
	return testRunOutput{res: res, err: err, code: ExitCode(err), stdout: stdout.String(), logs: logs.String(), took: took}
}

// metricValue returns a value of a metric in the summary, or -1 when it is absent.
func metricValue(s *summary.Data, name, key string) float64 {
	if s == nil {
		return -1
	}
	for _, m := range s.Metrics {
		if m.Name == name {
			return m.Value(key)
		}
	}
	return -1
}

func cliIterations(vus, iters int64) options.Options {
	return options.Options{VUs: null.From(vus), Iterations: null.From(iters)}
}

// syncBuffer is a goroutine-safe buffer for log output.
type syncBuffer = testkit.SyncBuffer
