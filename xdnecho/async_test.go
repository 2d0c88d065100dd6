package xdnecho

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestEchoAsyncKeepsCallsInFlight: one VU starts eight echoAsync calls; the DataNodes hold every
// call they receive, and all eight arrive before any is answered, so they were in flight at once.
// Released, the iteration ends with eight results and eight samples of each metric.
func TestEchoAsyncKeepsCallsInFlight(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default async function () {
  const calls = [];
  for (let i = 0; i < 8; i++) calls.push(client.echoAsync({ payloadResp: 100 }));
  globalThis.pending = calls.every((p) => p instanceof Promise);
  const results = await Promise.all(calls);
  globalThis.results = results;
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	for _, dn := range c.DataNodes() {
		if err := dn.SetFaults(dnsim.Faults{Stall: true}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		interrupted, err := outcome(vu.RunIteration(context.Background(), execinfo.Iteration{}))
		if interrupted && err == nil {
			err = context.Canceled
		}
		done <- err
	}()
	stalled := func() (n int64) {
		for _, dn := range c.DataNodes() {
			n += dn.Stats().Stalled
		}
		return n
	}
	testwait.Eventually(t, 30*time.Second, "8 calls held at the DataNodes", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the iteration ended with %d calls held: %v", stalled(), err)
		default:
		}
		return stalled() >= 8
	})
	for _, dn := range c.DataNodes() {
		_ = dn.SetFaults(dnsim.Faults{})
	}
	if err := <-done; err != nil {
		t.Fatalf("iteration: %v\n%s", err, rn.log.String())
	}
	if global(vu, "pending") != true {
		t.Error("echoAsync did not return promises")
	}
	results, _ := global(vu, "results").([]any)
	if len(results) != 8 {
		t.Fatalf("%d results", len(results))
	}
	for _, r := range results {
		if m := r.(map[string]any); m["ok"] != true || m["bytesReceived"].(int64) < 100 {
			t.Errorf("result %v", m)
		}
	}
	vu.Flush()
	for _, name := range []string{MetricReqDuration, MetricReqs, MetricReqFailed, echometrics.DataSent, echometrics.DataReceived} {
		if n := len(rn.out.ByName(name)); n != 8 {
			t.Errorf("%s: %d samples, want 8", name, n)
		}
	}
}

// TestEchoAsyncSamplesMatchEcho: echo() and echoAsync() of the same request produce samples with
// the same tags; echoAsync's carry the group and VU tags of when the call was made.
func TestEchoAsyncSamplesMatchEcho(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
import { group } from 'k6';
import exec from 'k6/execution';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, tags: { client: 'c1' } });
export default async function () {
  group('g', () => { client.echo({ tags: { call: 'x' } }); });
  let p;
  group('g', () => { p = client.echoAsync({ tags: { call: 'x' } }); });
  exec.vu.tags.later = 'set after the call';
  await p;
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	vu.Flush()
	samples := rn.out.ByName(MetricReqDuration)
	if len(samples) != 2 {
		t.Fatalf("%d samples", len(samples))
	}
	sync, async := samples[0].Tags.Map(), samples[1].Tags.Map()
	if len(sync) != len(async) {
		t.Errorf("tags differ:\necho      %v\nechoAsync %v", sync, async)
	}
	for k, v := range sync {
		if async[k] != v {
			t.Errorf("tag %s: echo %q, echoAsync %q", k, v, async[k])
		}
	}
	if sync["group"] != "::g" || sync["call"] != "x" || sync["client"] != "c1" || sync[echometrics.TagResult] != "SUCCESS" {
		t.Errorf("tags %v", sync)
	}
}

// TestEchoAsyncFailures: a failed call resolves with ok false (and is counted failed); with the
// throw option it rejects; a bad request rejects; the init context refuses the call.
func TestEchoAsyncFailures(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default async function () {
  const r = await client.echoAsync();
  globalThis.failed = { ok: r.ok, result: r.result };
  globalThis.thrown = await client.echoAsync({ throw: true }).then(() => 'resolved', (e) => String(e));
  globalThis.bad = await client.echoAsync({ nonsense: 1 }).then(() => 'resolved', (e) => String(e));
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	for _, dn := range c.DataNodes() {
		if err := dn.SetFaults(dnsim.Faults{ErrorRate: 1}); err != nil {
			t.Fatal(err)
		}
	}
	iterate(t, vu)
	if f := obj(t, vu, "failed"); f["ok"] != false || f["result"] != "CONTAINER_INTERNAL_ERROR" {
		t.Errorf("failed call: %v", f)
	}
	if s, _ := global(vu, "thrown").(string); !strings.Contains(s, "CONTAINER_INTERNAL_ERROR") {
		t.Errorf("throw: true gave %q", s)
	}
	if s, _ := global(vu, "bad").(string); !strings.Contains(s, `unknown request field "nonsense"`) {
		t.Errorf("bad request gave %q", s)
	}
	vu.Flush()
	if n := rn.out.Sum(MetricReqFailed); n != 2 {
		t.Errorf("dnecho_req_failed sum %v, want 2", n)
	}

	_, err := load(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
client.echoAsync();
export default function () {}`, clusterEnv(c))
	wantErr(t, err, MsgEchoAsyncInInit)
}
