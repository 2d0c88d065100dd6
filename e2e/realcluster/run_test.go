package realcluster

import (
	"fmt"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"path/filepath"
	"testing"
	"time"
)

// The examples that apply to a real cluster run with `dnecho run` against it (shortened through
// each example's env knobs): every call succeeds, the exact count where the example fixes one, and
// every threshold holds except latency ones, which promise an idle machine (testkit.CheckExampleSummary).
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
			want := 0.0
			if name == "freon-equivalent.js" {
				want = 2000 // ITERATIONS=2000
			}
			testkit.CheckExampleSummary(t, export, want, tail(r.Out, 20))
		})
	}
}
