package xdnecho

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// examplesDir holds the runnable scripts of examples/.
const examplesDir = "../examples"

// scriptOptions is the part of a script's options this test needs to drive its functions.
type scriptOptions struct {
	Scenarios map[string]struct {
		Executor string            `json:"executor"`
		Exec     string            `json:"exec"`
		Tags     map[string]string `json:"tags"`
	} `json:"scenarios"`
	Thresholds map[string]json.RawMessage `json:"thresholds"`
}

// TestExamples runs every example against the mini cluster the way `dnecho run --local-cluster`
// provides it (SetDefaults, no scm in the script): init, then a few iterations of each scenario's
// function. The scheduler itself (durations, rates) is the runner's business and not exercised.
func TestExamples(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	useDefaults(t, Defaults{SCM: c.SCMAddrs()})
	t.Setenv("OZONE_CONF_DIR", "")

	files, err := filepath.Glob(filepath.Join(examplesDir, "*.[jt]s"))
	if err != nil || len(files) < 6 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			env := map[string]string{"DURATION": "1s", "ITERATIONS": "10", "THREADS": "2", "STEP_SECONDS": "1", "STAGE": "1s",
				"IN_FLIGHT": "3", "CALLS": "2"}
			rn, err := loadFile(t, f, nil, env)
			if err != nil {
				t.Fatalf("init: %v", err)
			}
			var opts scriptOptions
			if err := json.Unmarshal(rn.r.Options(), &opts); err != nil {
				t.Fatalf("options: %v", err)
			}
			scenarios := []*execinfo.Scenario{{Name: "default", Executor: "constant-vus"}}
			if len(opts.Scenarios) > 0 {
				scenarios = nil
				for name, s := range opts.Scenarios {
					scenarios = append(scenarios, &execinfo.Scenario{Name: name, Executor: s.Executor, Exec: s.Exec, Tags: s.Tags})
				}
				sort.Slice(scenarios, func(i, j int) bool { return scenarios[i].Name < scenarios[j].Name })
			}
			vu := rn.vu(t, 1, scenarios[0])
			for _, s := range scenarios {
				if err := vu.Activate(s); err != nil {
					t.Fatalf("scenario %s: %v", s.Name, err)
				}
				for range 3 {
					interrupted, err := outcome(vu.RunIteration(context.Background(), execinfo.Iteration{}))
					if err != nil || interrupted {
						t.Fatalf("scenario %s: interrupted=%v err=%v", s.Name, interrupted, err)
					}
				}
			}
			vu.Flush()
			perIteration := 1
			if filepath.Base(f) == "async-echo.js" {
				perIteration = 3 * 2 // IN_FLIGHT chains of CALLS calls
			}
			reqs := rn.out.ByName(MetricReqs)
			if want := 3 * len(scenarios) * perIteration; len(reqs) != want {
				t.Fatalf("%d dnecho_reqs samples, want %d", len(reqs), want)
			}
			for _, s := range rn.out.ByName(MetricReqFailed) {
				if s.Value != 0 {
					t.Fatalf("a call failed: %v", s.Tags.Map())
				}
			}
			for _, s := range rn.out.ByName("checks") {
				if s.Value != 1 {
					t.Fatalf("check failed: %v", s.Tags.Map())
				}
			}
			for key := range opts.Thresholds {
				name, _, _ := strings.Cut(key, "{")
				if rn.r.Registry().Get(name) == nil && !isBuiltinMetric(name) {
					t.Errorf("threshold on %q: no such metric", key)
				}
			}
			checkExample(t, filepath.Base(f), c, rn, opts)
		})
	}
}

// checkExample checks what a particular example promises beyond running.
func checkExample(t *testing.T, name string, c *minicluster.Cluster, rn *run, opts scriptOptions) {
	switch name {
	case "per-datanode-thresholds.js":
		for _, dn := range c.DataNodes() {
			if _, ok := opts.Thresholds["dnecho_req_duration{datanode:"+dn.UUID()+"}"]; !ok {
				t.Errorf("no threshold for DataNode %s: %v", dn.UUID(), opts.Thresholds)
			}
		}
	case "payload-sweep.js":
		seen := map[string]bool{}
		for _, s := range rn.out.ByName(MetricReqDuration) {
			p, _ := s.Tags.Get("payload")
			seen[p] = true
		}
		if len(seen) != 5 {
			t.Errorf("payload tags seen: %v", seen)
		}
	case "typescript.ts":
		if s := rn.out.ByName(MetricReqs)[0]; s.Tags.Map()["suite"] != "typescript" {
			t.Errorf("client tags missing: %v", s.Tags.Map())
		}
	}
}

func isBuiltinMetric(name string) bool {
	switch name {
	case "checks", "iterations", "iteration_duration", "dropped_iterations", "data_sent", "data_received", "vus", "vus_max", "group_duration":
		return true
	}
	return false
}

// TestExampleWithExplicitSCM runs an example pointed at a cluster by DNECHO_SCM, without defaults.
func TestExampleWithExplicitSCM(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	useDefaults(t, Defaults{})
	t.Setenv("OZONE_CONF_DIR", "")
	f := filepath.Join(examplesDir, "quickstart.js")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	rn, err := loadFile(t, f, src, map[string]string{"DNECHO_SCM": c.SCMAddrs()[0]})
	if err != nil {
		t.Fatal(err)
	}
	iterate(t, rn.vu(t, 1, nil))
}
