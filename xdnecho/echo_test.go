package xdnecho

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

func TestEchoSizes(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () {
  globalThis.out = JSON.parse(__ENV.REQS).map((r) => client.echo(r));
}`, clusterEnv(c))
	cases := []struct {
		req            string
		minSent, rcvd  int // request and response payload bytes (messages add their headers)
		wantResultName string
	}{
		{`{}`, 0, 0, "SUCCESS"},
		{`{"payloadReq": 512, "payloadResp": 512}`, 512, 512, "SUCCESS"},
		{`{"payloadReq": "512B", "payloadResp": "512B"}`, 512, 512, "SUCCESS"},
		{`{"payloadResp": "4KB"}`, 0, 4096, "SUCCESS"},
		{`{"payloadResp": "4KiB"}`, 0, 4096, "SUCCESS"},
		{`{"payloadReq": "4kb"}`, 4096, 0, "SUCCESS"},
		{`{"payloadResp": "2MB"}`, 0, 2097151, "SUCCESS"},  // freon's cap
		{`{"payloadResp": "2MiB"}`, 0, 2097151, "SUCCESS"}, // same
		{`{"payloadResp": "2MB", "uncapped": true}`, 0, 2097152, "SUCCESS"},
		{`{"payloadResp": 1000, "sleepMs": 5, "readOnly": false}`, 0, 1000, "SUCCESS"},
		// Above the client's 32 MiB receive limit: a counted failure, not a crash.
		{`{"payloadResp": "40MB", "uncapped": true}`, 0, 0, "RESOURCE_EXHAUSTED"},
	}
	var reqs []string
	for _, tc := range cases {
		reqs = append(reqs, tc.req)
	}
	env := "[" + strings.Join(reqs, ",") + "]"
	vu, err := rn.r.NewVU(context.Background(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := vu.Activate(&execinfo.Scenario{Name: "default", Env: map[string]string{"REQS": env}}); err != nil {
		t.Fatal(err)
	}
	iterate(t, vu)
	out := global(vu, "out").([]any)
	for i, tc := range cases {
		r := out[i].(map[string]any)
		if r["result"] != tc.wantResultName {
			t.Errorf("%s: result %v (%v), want %s", tc.req, r["result"], r["message"], tc.wantResultName)
			continue
		}
		if ok := tc.wantResultName == "SUCCESS"; r["ok"] != ok {
			t.Errorf("%s: ok = %v", tc.req, r["ok"])
		}
		sent, rcvd := toInt(r["bytesSent"]), toInt(r["bytesReceived"])
		if sent < tc.minSent || sent > tc.minSent+200 {
			t.Errorf("%s: bytesSent %d, want %d + headers", tc.req, sent, tc.minSent)
		}
		if tc.wantResultName == "SUCCESS" && (rcvd < tc.rcvd || rcvd > tc.rcvd+100) {
			t.Errorf("%s: bytesReceived %d, want %d + headers", tc.req, rcvd, tc.rcvd)
		}
		if r["ok"] == true && (r["attempts"] != int64(1) || r["datanode"] != c.DataNodes()[0].UUID() || r["address"] != c.DataNodes()[0].Addr()) {
			t.Errorf("%s: attempts/datanode/address = %v %v %v", tc.req, r["attempts"], r["datanode"], r["address"])
		}
		if rtt, ok := r["rtt"].(float64); !ok || rtt <= 0 {
			t.Errorf("%s: rtt = %#v", tc.req, r["rtt"])
		}
	}
}

func toInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return -1
}

func TestEchoRequestErrorsThrow(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () {
  const errs = [];
  for (const r of [{ payloadresp: 1 }, { payloadResp: '1.5KB' }, { payloadResp: '4XB' }, { payloadResp: -1 },
                   { sleepMs: -1 }, { readOnly: 'yes' }, 'big', { payloadReq: '64MB' },
                   { payloadResp: '3GB', uncapped: true }]) {
    try { client.echo(r); errs.push('no error'); } catch (e) { errs.push(String(e)); }
  }
  globalThis.errs = errs;
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	errs := global(vu, "errs").([]any)
	want := []string{
		`unknown request field "payloadresp"; allowed: payloadReq, payloadResp`,
		`payloadResp 1.5KB: fractions are not supported`,
		`unknown unit "XB"`,
		`payloadResp -1: is negative`,
		`sleepMs -1`,
		`readOnly yes: want true or false`,
		`the request must be an object`,
		`exceeds the 33554432-byte (32 MiB) message limit`,
		`does not fit the request's 32-bit field`,
	}
	for i, w := range want {
		if s := errs[i].(string); !strings.Contains(s, w) {
			t.Errorf("case %d: %q does not contain %q", i, s, w)
		}
	}
	if n := len(rn.out.ByName(MetricReqs)); n != 0 {
		t.Errorf("%d dnecho_reqs samples for requests that were never sent", n)
	}
}

func TestEchoFailuresAreValues(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{ErrorRate: 1}})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
const noRetry = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, retries: false, deadline: '2s' });
export default function () {
  globalThis.injected = client.echo();
  globalThis.stopped = noRetry.echo();
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	// First an injected Ozone error on every DataNode, then the first DataNode stopped.
	iterate(t, vu)
	inj := obj(t, vu, "injected")
	if inj["ok"] != false || inj["result"] != dnpb.Result_CONTAINER_INTERNAL_ERROR.String() || inj["message"] == "" {
		t.Errorf("injected fault: %v", inj)
	}
	if inj["attempts"] != int64(3) || inj["datanode"] != c.DataNodes()[2].UUID() {
		t.Errorf("retries over the 3 members: attempts %v, last datanode %v", inj["attempts"], inj["datanode"])
	}

	for _, dn := range c.DataNodes() {
		if err := dn.SetFaults(dnsim.Faults{}); err != nil {
			t.Fatal(err)
		}
	}
	c.DataNodes()[0].Stop()
	iterate(t, vu)
	st := obj(t, vu, "stopped")
	if st["ok"] != false || st["result"] != "UNAVAILABLE" || st["attempts"] != int64(1) || st["datanode"] != c.DataNodes()[0].UUID() {
		t.Errorf("stopped DataNode without retries: %v", st)
	}
	if inj := obj(t, vu, "injected"); inj["ok"] != true || inj["datanode"] != c.DataNodes()[1].UUID() || inj["attempts"] != int64(2) {
		t.Errorf("stopped first DataNode with retries: %v", inj)
	}
	vu.Flush()
	failed := rn.out.ByName(MetricReqFailed)
	if len(failed) != 4 {
		t.Fatalf("%d dnecho_req_failed samples, want 4", len(failed))
	}
	var sum float64
	for _, s := range failed {
		sum += s.Value
	}
	if sum != 3 {
		t.Errorf("dnecho_req_failed sums to %v, want 3 failures of 4 calls", sum)
	}
}

func TestThrowOption(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{ErrorRate: 1}})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const throwing = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, throw: true, retries: false });
const plain = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, retries: false });
function attempt(f) { try { return f().result; } catch (e) { return 'threw: ' + e; } }
export default function () {
  globalThis.out = [
    attempt(() => throwing.echo()),
    attempt(() => throwing.echo({ throw: false })),
    attempt(() => plain.echo()),
    attempt(() => plain.echo({ throw: true })),
  ];
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	out := global(vu, "out").([]any)
	threw := func(s any) bool { return strings.HasPrefix(s.(string), "threw: ") }
	if !threw(out[0]) || !strings.Contains(out[0].(string), "CONTAINER_INTERNAL_ERROR: dnsim: injected fault") {
		t.Errorf("throw: true: %v", out[0])
	}
	if threw(out[1]) || out[1] != "CONTAINER_INTERNAL_ERROR" {
		t.Errorf("throw: true overridden per call: %v", out[1])
	}
	if threw(out[2]) {
		t.Errorf("default: %v", out[2])
	}
	if !threw(out[3]) {
		t.Errorf("per-call throw: %v", out[3])
	}
	vu.Flush()
	if n := len(rn.out.ByName(MetricReqs)); n != 4 {
		t.Errorf("%d dnecho_reqs samples, want 4: thrown failures are counted too", n)
	}
}

func TestTargetAllSpreads(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, target: 'all', stream: 'reuse' });
export default function () {
  const seen = {};
  for (let i = 0; i < 30; i++) { const r = client.echo(); if (r.ok) seen[r.datanode] = (seen[r.datanode] || 0) + 1; }
  globalThis.seen = seen;
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	seen := obj(t, vu, "seen")
	for _, dn := range c.DataNodes() {
		if seen[dn.UUID()] != int64(10) {
			t.Errorf("DataNode %s got %v of 30 calls, want 10: %v", dn.UUID(), seen[dn.UUID()], seen)
		}
		if s := dn.Stats(); s.Streams != 1 || s.Calls != 10 {
			t.Errorf("DataNode %s stats %+v, want 10 calls on one reused stream", dn.UUID(), s)
		}
	}
}

// Clients with equal options in any number of VUs share one session, and Clients that differ
// only in how they send share the SCM lookup: 4 VUs × 2 option sets make one lookup (freon's
// GetContainer + ListPipelines: two SCM requests).
func TestClientsShareALookup(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	before := c.SCM().Requests()
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const two = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, clients: 2 });
const one = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () { globalThis.r = [two.echo(), one.echo()]; }`, clusterEnv(c))
	for id := uint64(1); id <= 4; id++ {
		vu := rn.vu(t, id, nil)
		iterate(t, vu)
		for i, r := range global(vu, "r").([]any) {
			if r.(map[string]any)["ok"] != true {
				t.Fatalf("VU %d call %d: %v", id, i, r)
			}
		}
	}
	if n := c.SCM().Requests() - before; n != 2 {
		t.Fatalf("%d SCM requests, want 2 (one shared lookup)", n)
	}
}

func TestInterruptedCallIsNotMeasured(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{Stall: true}})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () { globalThis.r = client.echo(); }`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	// The scheduler interrupts by cancelling (a deadline would race with the DataNode's own
	// DEADLINE_EXCEEDED answer to the grpc-timeout it was sent).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	interrupted, err := outcome(vu.RunIteration(ctx, execinfo.Iteration{}))
	if !interrupted || err != nil {
		t.Fatalf("RunIteration: interrupted=%v err=%v result=%v", interrupted, err, global(vu, "r"))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("interrupt took %s", d)
	}
	vu.Flush()
	if n := len(rn.out.ByName(MetricReqs)); n != 0 {
		t.Errorf("%d dnecho_reqs samples for an interrupted call", n)
	}
	for _, dn := range c.DataNodes() {
		_ = dn.SetFaults(dnsim.Faults{}) // release the stalled stream
	}
}

func TestResultBehavesAsPlainObject(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
export default function () {
  const r = client.echo();
  const keys = Object.keys(r).join(',');
  const proto = Object.getPrototypeOf(r) === Object.prototype;
  const copy = { ...r };
  r.note = 'mine';
  r.ok = 'overridden';
  delete r.message;
  globalThis.out = { keys, proto, copyOk: copy.ok, typeofRtt: typeof r.rtt, after: Object.keys(r).join(','),
                     note: r.note, ok: r.ok, hasMessage: 'message' in r, json: JSON.stringify(r).length > 0 };
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	out := obj(t, vu, "out")
	want := map[string]any{
		"keys":  "ok,result,message,rtt,datanode,address,bytesSent,bytesReceived,attempts",
		"proto": true, "copyOk": true, "typeofRtt": "number",
		"after": "ok,result,rtt,datanode,address,bytesSent,bytesReceived,attempts,note",
		"note":  "mine", "ok": "overridden", "hasMessage": false, "json": true,
	}
	for k, w := range want {
		if out[k] != w {
			t.Errorf("%s = %#v, want %#v", k, out[k], w)
		}
	}
}

// client.prepare: checked once (also in init), frozen, independent of the original object, and
// echo(prepared) sends exactly what echo(original) sends.
func TestPreparedRequest(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM });
const original = { payloadResp: '2KB', tags: { kind: 'prepared' } };
const prepared = client.prepare(original);
original.payloadResp = '8KB'; // after prepare: not seen
let badPrepare = '';
try { client.prepare({ payloadResp: 'huge' }); } catch (e) { badPrepare = String(e); }
export default function () {
  const r = client.echo(prepared);
  globalThis.out = { ok: r.ok, received: r.bytesReceived, frozen: Object.isFrozen(prepared),
    resp: prepared.payloadResp, badPrepare, plain: client.echo({ payloadResp: '2KB' }).bytesReceived };
}`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	out := obj(t, vu, "out")
	if out["ok"] != true || out["frozen"] != true || out["resp"] != "2KB" || out["received"] != out["plain"] {
		t.Fatalf("prepared echo: %v", out)
	}
	if r := out["received"].(int64); r < 2048 || r > 2100 {
		t.Errorf("received %d bytes, want the 2KB asked for at prepare time", r)
	}
	if !strings.Contains(out["badPrepare"].(string), "client.prepare: payloadResp huge") {
		t.Errorf("bad request: %q", out["badPrepare"])
	}
	vu.Flush()
	tagged := 0
	for _, s := range rn.out.ByName(MetricReqs) {
		if k, _ := s.Tags.Get("kind"); k == "prepared" {
			tagged++
		}
	}
	if tagged != 1 {
		t.Errorf("%d samples with the prepared request's tags, want 1", tagged)
	}
}
