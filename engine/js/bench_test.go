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
		if interrupted, err := outcome(vu.RunIteration(ctx, iterationZero)); interrupted || err != nil {
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

// sharedArrayScript builds a ~10 MB array (80,000 records of ~130 bytes of JSON) in the init
// context: with SharedArray when shared, else a plain array in every VU. BUILD=0 builds nothing.
const sharedArrayScript = `
import { SharedArray } from "k6/data";
function records() {
  const out = [];
  for (let i = 0; i < 80000; i++) {
    out.push({ id: i, name: "user-" + String(i).padStart(6, "0"), email: "user" + i + "@example.com",
      token: "t".repeat(48) + String(i).padStart(8, "0") });
  }
  return out;
}
const data = __ENV.BUILD === "0" ? [] : __ENV.SHARED === "1" ? new SharedArray("records", records) : records();
export default function () { if (data.length > 0 && data[__VU % data.length].id < 0) throw new Error("bad"); }
`

// BenchmarkSharedArrayMemory reports the heap that a ~10 MB SharedArray adds to a test of 1000
// VUs (MB-1000VUs), next to the size of the array itself (MB-one-copy: its JSON text), and the
// heap a plain array costs per VU (MB-plain-per-VU, measured on 10 VUs).
//
//	go test -run '^$' -bench SharedArrayMemory -benchtime 1x ./engine/js/
func BenchmarkSharedArrayMemory(b *testing.B) {
	heapOf := func(env map[string]string, vus int) (afterLoad, perTest float64) {
		runtime.GC()
		var m0, m1, m2 runtime.MemStats
		runtime.ReadMemStats(&m0)
		e := mustLoad(b, map[string]string{"script.js": sharedArrayScript}, "script.js", Config{Env: env})
		runtime.GC()
		runtime.ReadMemStats(&m1)
		list := make([]*VU, vus)
		for i := range list {
			list[i] = e.vu(b, uint64(i+1))
			iterate(b, list[i])
			list[i].Flush()
		}
		runtime.GC()
		runtime.ReadMemStats(&m2)
		runtime.KeepAlive(list)
		runtime.KeepAlive(e)
		const mb = 1 << 20
		return float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / mb, float64(int64(m2.HeapAlloc)-int64(m0.HeapAlloc)) / mb
	}
	for b.Loop() {
		_, none := heapOf(map[string]string{"BUILD": "0"}, 1000)
		oneCopy, shared := heapOf(map[string]string{"SHARED": "1"}, 1000)
		_, plainNone := heapOf(map[string]string{"BUILD": "0"}, 10)
		_, plain := heapOf(map[string]string{"SHARED": "0"}, 10)
		b.ReportMetric(shared-none, "MB-1000VUs")
		b.ReportMetric(oneCopy, "MB-one-copy")
		b.ReportMetric((plain-plainNone)/10, "MB-plain-per-VU")
	}
}
