package js

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestInterrupt(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"busy loop", "while (true) {}"},
		{"sleep", "sleep(10);"},
		{"sleep then work", "sleep(10); globalThis.after = true;"},
		{"busy loop in group", `group("g", () => { while (true) {} });`},
		{"check swallowing", `try { check(1, { spin: () => { while (true) {} } }); } catch (e) { globalThis.after = true; }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{"script.js": `import { sleep, group, check } from "k6";
export function quick() {}
export default function () { ` + tc.body + ` }`}, "script.js", Config{})
			vu := e.vu(t, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			interrupted, err := outcome(vu.RunIteration(ctx, iterationZero))
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("interrupt took %v", took)
			}
			if !interrupted || err != nil {
				t.Fatalf("interrupted=%v err=%v", interrupted, err)
			}
			if global(vu, "after") != nil {
				t.Fatal("script kept running after the interrupt")
			}
			vu.Flush()
			if n := len(e.out.ByName("iterations")) + len(e.out.ByName("iteration_duration")); n != 0 {
				t.Fatalf("interrupted iteration emitted %d iteration samples", n)
			}
			if n := len(e.out.ByName("checks")); n != 0 {
				t.Fatalf("interrupted check recorded %d samples", n)
			}
			if n := len(e.out.ByName("data_sent")); n != 1 {
				t.Fatalf("data_sent samples %d", n)
			}
			// The VU is reusable: the next iteration is not hit by a stale interrupt.
			e.out.Reset()
			if err := vu.Activate(&scenarioQuick); err != nil {
				t.Fatal(err)
			}
			iterate(t, vu)
		})
	}
}

func TestInterruptInit(t *testing.T) {
	e := mustLoad(t, map[string]string{"s.js": "if (__VU > 0) { while (true) {} }\nexport default function () {}\n"}, "s.js", Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.r.NewVU(ctx, 1, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NewVU err = %v, want the context's error", err)
	}
}
