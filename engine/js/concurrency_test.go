package js

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentVUs drives several VUs of one runner at once, as the scheduler does, so the race
// detector sees the shared parts: compile and open() caches, module roots, group tree, registry.
func TestConcurrentVUs(t *testing.T) {
	mod := newTestModule()
	e := mustLoad(t, map[string]string{
		"script.js": `
import { check, group } from "k6";
import { Counter } from "k6/metrics";
import exec from "k6/execution";
import { bump } from "k6/x/test";
const data = open("./data.txt");
const c = new Counter("concurrent_total");
export default function () {
  group("g" + (__ITER % 3), () => {
    check(data, { "has text": (d) => d === "payload" });
    c.add(1, { vu: String(exec.vu.idInInstance) });
  });
  bump();
}
export function late() { return require("./lib.js"); }`,
		"data.txt": "payload",
		"lib.js":   "export const x = 1;",
	}, "script.js", Config{Modules: testModules(mod)})
	const vus, iters = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, vus)
	for i := 1; i <= vus; i++ {
		wg.Add(1)
		go func(id uint64) {
			defer wg.Done()
			vu, err := e.r.NewVU(context.Background(), id, id)
			if err != nil {
				errs <- err
				return
			}
			if err := vu.Activate(&scenarioDefault); err != nil {
				errs <- err
				return
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for j := 0; j < iters; j++ {
				if err := vu.RunIteration(ctx, iterationZero).Err; err != nil {
					errs <- err
					return
				}
			}
			vu.Flush()
		}(uint64(i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(e.out.ByName("concurrent_total")); n != vus*iters {
		t.Fatalf("%d samples, want %d", n, vus*iters)
	}
	var passes int64
	for _, g := range e.r.Groups().Root().Groups() {
		for _, c := range g.Checks() {
			p, _ := c.Counts()
			passes += p
		}
	}
	if passes != vus*iters {
		t.Fatalf("check passes %d", passes)
	}
}

func TestConsole(t *testing.T) {
	e := mustLoad(t, map[string]string{"s.js": `
console.log("hello", 1, { a: [1, 2] }, null);
console.warn(new Error("careful"));
console.debug("dbg");
export default function () {}`}, "s.js", Config{})
	log := e.log.String()
	for _, want := range []string{
		`level=INFO msg="hello 1 { a: [ 1, 2 ] } null" source=console`,
		`level=WARN msg="Error: careful" source=console`,
		`level=DEBUG msg=dbg source=console`,
	} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %s:\n%s", want, log)
		}
	}
}

func TestChecksInSetupGroup(t *testing.T) {
	e := mustLoad(t, map[string]string{"s.js": `import { check } from "k6";
export function setup() { check(1, { "setup ok": true }); }
export function teardown() {}
export default function () {}`}, "s.js", Config{})
	if _, err := e.r.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.r.Teardown(context.Background()); err != nil {
		t.Fatal(err)
	}
	gs := e.r.Groups().Root().Groups()
	if len(gs) != 1 || gs[0].Path != "::setup" || gs[0].Checks()[0].Path != "::setup::setup ok" {
		t.Fatalf("groups %+v (teardown without checks must not be listed)", gs)
	}
	checks := e.out.ByName("checks")
	if g, _ := checks[0].Tags.Get("group"); len(checks) != 1 || g != "::setup" {
		t.Fatalf("setup check samples %+v", checks)
	}
}
