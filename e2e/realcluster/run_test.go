package realcluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The examples that apply to a real cluster run with `dnecho run` against it (shortened through
// each example's env knobs): every call succeeds, the exact count where the example fixes one, and
// every threshold holds except latency ones, which promise an idle machine.
func TestRunExamplesAgainstRealOzone(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	examples := map[string][]string{
		"quickstart.js":              {"-e", "DURATION=3s", "-e", "VUS=2"},
		"freon-equivalent.js":        {"-e", "ITERATIONS=2000", "-e", "THREADS=4", "-e", "CLIENTS=2"},
		"ramping-arrival-rate.js":    {"-e", "RATE=200", "-e", "STAGE=1s"},
		"per-datanode-thresholds.js": {"-e", "DURATION=3s"},
		"payload-sweep.js":           {"-e", "STEP_SECONDS=1", "-e", "VUS=2"},
		"ratis-modes.js":             {"-e", "DURATION=2s", "-e", "VUS=2"},
		"typescript.ts":              {"-e", "DURATION=2s"},
	}
	for name, env := range examples {
		t.Run(name, func(t *testing.T) {
			export := filepath.Join(t.TempDir(), "summary.json")
			args := append([]string{"run", "-q", "--summary-export", export, "-e", "DNECHO_CONF=" + c.ClientConf, "-e", fmt.Sprintf("CONTAINER_ID=%d", id)}, env...)
			r := dnecho(t, 3*time.Minute, append(args, filepath.Join("..", "..", "examples", name))...)
			if r.Code != 0 && r.Code != 99 {
				t.Fatalf("exit %d\n%s", r.Code, tail(r.Out, 20))
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
			for metric, m := range sum.Metrics {
				th, _ := m["thresholds"].(map[string]any)
				for expr, crossed := range th {
					if crossed == true && !strings.HasPrefix(metric, "dnecho_req_duration") {
						t.Errorf("threshold %s %s crossed\n%s", metric, expr, tail(r.Out, 20))
					}
				}
			}
			reqs, _ := sum.Metrics["dnecho_reqs"]["count"].(float64)
			if reqs < 10 || (name == "freon-equivalent.js" && reqs != 2000) {
				t.Errorf("dnecho_reqs count %v", reqs)
			}
			if failed := sum.Metrics["dnecho_req_failed"]; failed == nil || failed["value"].(float64) != 0 {
				t.Errorf("dnecho_req_failed %v\n%s", failed, tail(r.Out, 20))
			}
		})
	}
}
