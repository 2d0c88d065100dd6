package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testkit"
)

// Every script in examples/ runs end to end against `--local-cluster` (shortened through the env
// knobs each example documents), passes its thresholds, and reports dnecho samples.
func TestExamplesRunAgainstLocalCluster(t *testing.T) {
	examples := map[string][]string{
		"quickstart.js":              {"-e", "DURATION=2s", "-e", "VUS=2"},
		"freon-equivalent.js":        {"-e", "ITERATIONS=2000", "-e", "THREADS=4", "-e", "CLIENTS=2"},
		"ramping-arrival-rate.js":    {"-e", "RATE=200", "-e", "STAGE=1s"},
		"per-datanode-thresholds.js": {"-e", "DURATION=2s"},
		"payload-sweep.js":           {"-e", "STEP_SECONDS=1", "-e", "VUS=2"},
		"typescript.ts":              {"-e", "DURATION=2s"},
		"ratis-modes.js":             {"-e", "DURATION=1s", "-e", "VUS=2"},
		"async-echo.js":              {"-e", "DURATION=2s", "-e", "VUS=2", "-e", "IN_FLIGHT=4", "-e", "CALLS=4"},
		// An injected latency, as a real DataNode's work, keeps the machine's noise out of the verdict.
		"slow-datanode.js": {"-e", "DURATION=2s", "--local-cluster-latency", "2ms"},
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext != ".js" && ext != ".ts" {
			continue // the editors' jsconfig.json and tsconfig.json
		}
		if _, ok := examples[e.Name()]; !ok {
			t.Errorf("examples/%s has no entry in this test: every example must be run", e.Name())
		}
	}
	for name, env := range examples {
		t.Run(name, func(t *testing.T) {
			export := filepath.Join(t.TempDir(), "summary.json")
			args := append([]string{"run", "--local-cluster", "-q", "--summary-export", export}, env...)
			args = append(args, filepath.Join("..", "..", "examples", name))
			r := dnecho(t, 3*time.Minute, args...)
			if r.code != 0 && r.code != 99 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			want := 0.0
			if name == "freon-equivalent.js" {
				want = 2000 // ITERATIONS=2000
			}
			testkit.CheckExampleSummary(t, export, want, r.all())
			if strings.Contains(r.all(), "panic") {
				t.Errorf("panic in output:\n%s", r.all())
			}
		})
	}
}
