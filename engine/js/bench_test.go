package js

import (
	"context"
	"runtime"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

// benchVU loads a script and returns an activated VU whose samples are discarded.
func benchVU(b *testing.B, src string, cfg Config) *VU {
	b.Helper()
	e := mustLoad(b, map[string]string{"script.js": src}, "script.js", cfg)
	e.r.cfg.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	return e.vu(b, 1)
}

func runIterations(b *testing.B, vu *VU) {
	// A cancellable context, as the scheduler passes: it arms the interrupt on every iteration.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if interrupted, err := vu.RunIteration(ctx, iterationZero); interrupted || err != nil {
			b.Fatal(interrupted, err)
		}
	}
}

func BenchmarkIterationEmpty(b *testing.B) {
	runIterations(b, benchVU(b, "export default function () {}", Config{}))
}

func BenchmarkIterationWithCustomModuleCall(b *testing.B) {
	vu := benchVU(b, `import { noop } from "k6/x/test";
export default function () { noop(); }`, Config{Modules: testModules(newTestModule())})
	runIterations(b, vu)
}

func BenchmarkIterationWithCheck(b *testing.B) {
	runIterations(b, benchVU(b, `import { check } from "k6";
export default function () { check(1, { "is one": (v) => v === 1 }); }`, Config{}))
}

// BenchmarkVUMemory reports the heap held by one initialised VU of a small script that imports
// the three built-in modules, a local module and a custom one, and declares a metric.
func BenchmarkVUMemory(b *testing.B) {
	const perRound = 100
	e := mustLoad(b, map[string]string{
		"script.js": `
import { check, group, sleep } from "k6";
import exec from "k6/execution";
import { Trend } from "k6/metrics";
import { noop } from "k6/x/test";
import { helper } from "./lib.js";
export const options = { vus: 10, duration: "10s" };
const t = new Trend("my_latency", true);
export default function () {
  group("g", () => { check(helper(exec.vu.idInTest), { ok: (v) => v > 0 }); t.add(1); noop(); });
}`,
		"lib.js": "export function helper(n) { return n + 1; }\n",
	}, "script.js", Config{Modules: testModules(newTestModule())})
	var total float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		vus := make([]*VU, perRound)
		for i := range vus {
			vus[i] = e.vu(b, uint64(i+1))
			iterate(b, vus[i])
			vus[i].Flush()
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		total += float64(after.HeapAlloc-before.HeapAlloc) / perRound / 1024
		runtime.KeepAlive(vus)
		e.out.Reset()
	}
	b.ReportMetric(total/float64(b.N), "KiB/VU")
}
