package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
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
			b, err := os.ReadFile(export)
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Metrics map[string]map[string]any `json:"metrics"`
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			// Latency thresholds are the example's promise about an idle machine; on a loaded one
			// (CI runs test packages in parallel) they may miss. Every other threshold must hold.
			for metric, m := range sum.Metrics {
				th, _ := m["thresholds"].(map[string]any)
				for expr, crossed := range th {
					switch {
					case crossed != true:
					case metric == "dnecho_req_duration" || strings.HasPrefix(metric, "dnecho_req_duration{"):
						t.Logf("latency threshold %s %s missed on this machine (not a failure)", metric, expr)
					default:
						t.Errorf("threshold %s %s crossed\n%s", metric, expr, r.all())
					}
				}
			}
			reqs, ok := sum.Metrics["dnecho_reqs"]["count"].(float64)
			if !ok || reqs < 10 {
				t.Errorf("dnecho_reqs count %v: the example sent (almost) no echo", sum.Metrics["dnecho_reqs"])
			}
			if name == "freon-equivalent.js" && reqs != 2000 {
				t.Errorf("freon-equivalent with ITERATIONS=2000 sent %v echoes, want exactly 2000", reqs)
			}
			if failed := sum.Metrics["dnecho_req_failed"]; failed == nil || failed["value"].(float64) != 0 {
				t.Errorf("dnecho_req_failed %v", failed)
			}
			if strings.Contains(r.all(), "panic") {
				t.Errorf("panic in output:\n%s", r.all())
			}
		})
	}
}
