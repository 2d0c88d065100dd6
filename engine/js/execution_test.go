package js

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
)

type fakeExec struct{ stats execinfo.InstanceStats }

// fixedState is a scenario's live state frozen at a start time and a progress.
type fixedState struct {
	start    time.Time
	progress float64
}

func (f fixedState) StartTime() time.Time { return f.start }
func (f fixedState) Progress() float64    { return f.progress }

func (f fakeExec) InstanceStats() execinfo.InstanceStats { return f.stats }

func TestExecutionModule(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
import exec from "k6/execution";
import { Counter } from "k6/metrics";
const c = new Counter("tagged");
export const options = { vus: 3, iterations: 9, tags: { run: "r" } };
export default function () {
  const s = exec.scenario, v = exec.vu, i = exec.instance;
  globalThis.out = JSON.stringify({
    scenario: [s.name, s.executor, s.startTime, s.progress, s.iterationInInstance, s.iterationInTest],
    vu: [v.idInInstance, v.idInTest, v.iterationInInstance, v.iterationInScenario],
    instance: [i.iterationsInterrupted, i.iterationsCompleted, i.vusActive, i.vusInitialized, i.currentTestRunDuration],
    tagsBefore: v.metrics.tags.scenario + "/" + v.tags.run,
  });
  exec.vu.metrics.tags.mytag = 5;
  exec.vu.metrics.tags.obj = { no: 1 };
  exec.vu.metrics.metadata.trace = "abc";
  c.add(1);
  delete exec.vu.metrics.tags.mytag;
  c.add(2);
  globalThis.keys = Object.keys(exec.vu.metrics.tags).join(",");
  const o = exec.test.options;
  globalThis.opts = JSON.stringify(o) + "|" + Object.isFrozen(o) + "|" + Object.isFrozen(o.tags);
}`}, "script.js", Config{})
	e.r.Configure(RunOptions{
		Options: json.RawMessage(`{"vus":3,"iterations":9,"tags":{"run":"r"},"scenarios":{"default":{"executor":"shared-iterations"}}}`),
		RunTags: map[string]string{"run": "r"},
		Exec: fakeExec{execinfo.InstanceStats{IterationsInterrupted: 1, IterationsCompleted: 2, VUsActive: 3,
			VUsInitialized: 4, CurrentTestRunDuration: 1500 * time.Microsecond}},
	})
	vu, err := e.r.NewVU(context.Background(), 2, 12)
	if err != nil {
		t.Fatal(err)
	}
	start := time.UnixMilli(1700000000000)
	if err := vu.Activate(&execinfo.Scenario{Name: "sc", Executor: "shared-iterations", State: fixedState{start, 0.25}}); err != nil {
		t.Fatal(err)
	}
	if err := vu.RunIteration(context.Background(), execinfo.Iteration{VUInScenario: 5, ScenarioInInstance: 6, ScenarioInTest: 7}).Err; err != nil {
		t.Fatal(err)
	}
	vu.Flush()
	want := `{"scenario":["sc","shared-iterations",1700000000000,0.25,6,7],"vu":[2,12,0,5],"instance":[1,2,3,4,1.5],"tagsBefore":"sc/r"}`
	if got := global(vu, "out"); got != want {
		t.Fatalf("exec:\n%s\nwant\n%s", got, want)
	}
	if got := global(vu, "keys"); got != "group,run,scenario" {
		t.Fatalf("tag keys %v", got)
	}
	if got := global(vu, "opts"); got != `{"scenarios":{"default":{"executor":"shared-iterations"}},"tags":{"run":"r"}}|true|true` {
		t.Fatalf("options %v", got)
	}
	tagged := e.out.ByName("tagged")
	if len(tagged) != 2 {
		t.Fatalf("%d samples", len(tagged))
	}
	if m := tagged[0].Tags.Map(); m["mytag"] != "5" || m["run"] != "r" || m["scenario"] != "sc" || tagged[0].Metadata["trace"] != "abc" {
		t.Fatalf("first sample tags %v metadata %v", m, tagged[0].Metadata)
	}
	if _, ok := tagged[1].Tags.Get("mytag"); ok {
		t.Fatal("deleted tag still present")
	}
	// Tags set by the script persist into later iterations (and the iterations sample).
	its := e.out.ByName("iterations")
	if _, ok := its[0].Tags.Get("mytag"); ok {
		t.Fatal("deleted tag on the iterations sample")
	}
	if !strings.Contains(e.log.String(), `tag \"obj\": only string, number or boolean values`) {
		t.Fatalf("no warning for an object tag value: %s", e.log.String())
	}
}

func TestExecScenarioOutsideScenario(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `import exec from "k6/execution";
export function setup() { return exec.scenario.name; }
export default function () {}`}, "script.js", Config{})
	_, err := e.r.Setup(context.Background())
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "outside of a scenario") {
		t.Fatalf("err = %v", err)
	}
}

func TestAbortAndFail(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
import exec from "k6/execution";
export default function () {
  if (__ITER === 0) { exec.test.fail("first"); exec.test.fail("second"); globalThis.afterFail = true; return; }
  try { exec.test.abort("enough"); } catch (e) { globalThis.caught = true; }
  globalThis.afterAbort = true;
}`}, "script.js", Config{})
	var aborted []*modules.AbortError
	e.r.Configure(RunOptions{OnAbort: func(a *modules.AbortError) { aborted = append(aborted, a) }})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if global(vu, "afterFail") != true {
		t.Fatal("exec.test.fail ended the iteration")
	}
	if reason, failed := e.r.Outcome().Failed(); !failed || reason != "first" {
		t.Fatalf("Failed() = %q %v", reason, failed)
	}
	interrupted, err := outcome(vu.RunIteration(context.Background(), iterationZero))
	var ae *modules.AbortError
	if !interrupted || !errors.As(err, &ae) || ae.Reason != "enough" {
		t.Fatalf("interrupted=%v err=%v", interrupted, err)
	}
	if code, _ := ExitCode(err); code != 108 {
		t.Fatalf("exit code %d", code)
	}
	if global(vu, "caught") != nil || global(vu, "afterAbort") != nil {
		t.Fatal("script kept running after exec.test.abort")
	}
	if len(aborted) != 1 || e.r.Outcome().Aborted() == nil {
		t.Fatalf("OnAbort calls %d", len(aborted))
	}
	vu.Flush()
	if n := len(e.out.ByName("iterations")); n != 1 {
		t.Fatalf("%d iterations samples, want 1 (the aborted one is interrupted)", n)
	}
	// The VU is usable afterwards (the interrupt was cleared).
	if err := vu.Activate(&execinfo.Scenario{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := vu.RunIteration(context.Background(), iterationZero).Err; err == nil {
		t.Fatal("expected the abort branch again")
	}

	// Abort in setup and in init.
	e = mustLoad(t, map[string]string{"s.js": `import exec from "k6/execution";
export function setup() { exec.test.abort(); }
export default function () {}`}, "s.js", Config{})
	if _, err := e.r.Setup(context.Background()); !errors.As(err, &ae) || ae.Error() != "test aborted by the script" {
		t.Fatalf("setup abort err = %v", err)
	}
	_, err = load(t, map[string]string{"s.js": `import exec from "k6/execution"; exec.test.abort("init");
export default function () {}`}, "s.js", Config{})
	if !errors.As(err, &ae) || ae.Reason != "init" {
		t.Fatalf("init abort err = %v", err)
	}
}

func TestVUAndIterMetadata(t *testing.T) {
	e := mustLoad(t, map[string]string{"s.js": "export default function () {}"}, "s.js", Config{})
	e.r.Configure(RunOptions{VUMetadata: true, IterMetadata: true})
	vu := e.vu(t, 4)
	iterate(t, vu)
	iterate(t, vu)
	vu.Flush()
	its := e.out.ByName("iterations")
	if len(its) != 2 || its[1].Metadata["vu"] != "4" || its[1].Metadata["iter"] != "1" || its[0].Metadata["iter"] != "0" {
		t.Fatalf("metadata %v %v", its[0].Metadata, its[1].Metadata)
	}
	if _, ok := its[0].Tags.Get("vu"); ok {
		t.Fatal("vu must be metadata, not a tag")
	}
}

// TestVUTagsResetPerActivation: tags and metadata a script sets through exec.vu belong to the
// scenario activation; the VU's next scenario starts with only its own tags.
func TestVUTagsResetPerActivation(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
import exec from "k6/execution";
import { Counter } from "k6/metrics";
const c = new Counter("marks");
export function first() { exec.vu.tags.mine = "first"; exec.vu.metrics.metadata.trace = "t1"; c.add(1); }
export function second() { globalThis.seen = [exec.vu.tags.mine, exec.vu.metrics.metadata.trace, exec.vu.tags.kind]; c.add(1); }
`}, "script.js", Config{})
	vu, err := e.r.NewVU(context.Background(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []execinfo.Scenario{
		{Name: "a", Exec: "first"},
		{Name: "b", Exec: "second", Tags: map[string]string{"kind": "b"}},
	} {
		if err := vu.Activate(&s); err != nil {
			t.Fatal(err)
		}
		iterate(t, vu)
		vu.Deactivate()
	}
	if seen := global(vu, "seen").([]any); seen[0] != nil || seen[1] != nil || seen[2] != "b" {
		t.Fatalf("the second scenario saw %v, want [undefined undefined b]", seen)
	}
	marks := e.out.ByName("marks")
	if _, ok := marks[1].Tags.Get("mine"); ok || marks[1].Metadata["trace"] != "" {
		t.Fatalf("second scenario's sample: tags %v metadata %v", marks[1].Tags.Map(), marks[1].Metadata)
	}
}

// TestExecVUIterationOutsideIterations: exec.vu.iterationInInstance is 0 in setup, as __ITER
// and k6, not -1.
func TestExecVUIterationOutsideIterations(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `import exec from "k6/execution";
export function setup() { return [exec.vu.iterationInInstance, __ITER]; }
export default function () {}`}, "script.js", Config{})
	data, err := e.r.Setup(context.Background())
	if err != nil || string(data) != "[0,0]" {
		t.Errorf("setup saw %s (%v), want [0,0]", data, err)
	}
}
