package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modulesTogetherScript uses the script features beyond plain calls together against the local
// cluster: an async default function keeping echoAsync calls in flight, timers, a SharedArray
// read from a JSON file, k6/encoding and k6/crypto checks, a threshold on k6's
// http_req_duration, and a handleSummary that imports textSummary from jslib's URL with no
// network.
const modulesTogetherScript = `
import dnecho from 'k6/x/dnecho';
import { check } from 'k6';
import { SharedArray } from 'k6/data';
import { setTimeout as later } from 'k6/timers';
import encoding from 'k6/encoding';
import crypto from 'k6/crypto';
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.0.2/index.js';

const payloads = new SharedArray('payloads', () => JSON.parse(open('./payloads.json')));

export const options = {
  scenarios: { async_echo: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } },
  thresholds: {
    http_req_duration: ['p(95)<500'],
    dnecho_req_failed: ['rate==0'],
    checks: ['rate==1'],
  },
};

const client = new dnecho.Client({ containerId: 1 });

function pause(ms) { return new Promise((resolve) => later(resolve, ms)); }

export default async function () {
  const calls = payloads.map((p) => client.echoAsync({ payloadResp: p.size, tags: { payload: p.name } }));
  await pause(5);
  const results = await Promise.all(calls);
  setTimeout(() => check(results, { 'timer ran after the calls': (rs) => rs.length === payloads.length }), 1);
  check(results, { 'every echo ok': (rs) => rs.every((r) => r.ok) });
  const token = encoding.b64encode('dnecho:' + __VU);
  check(token, {
    'base64 round trip': (t) => encoding.b64decode(t, 'std', 's') === 'dnecho:' + __VU,
    'sha256 hex': () => crypto.sha256('abc', 'hex') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'hmac': () => crypto.hmac('sha256', 'key', 'The quick brown fox jumps over the lazy dog', 'hex').startsWith('f7bc83f4'),
  });
}

export function handleSummary(data) {
  return { stdout: 'FROM HANDLESUMMARY\n' + textSummary(data, { indent: ' ', enableColors: false }) };
}
`

// TestRunModulesTogether runs modulesTogetherScript end to end, offline, against --local-cluster.
func TestRunModulesTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	payloads := `[{"name": "small", "size": "1KB"}, {"name": "medium", "size": "16KB"}, {"name": "large", "size": "64KB"}, {"name": "empty", "size": 0}]`
	for name, src := range map[string]string{"everything.js": modulesTogetherScript, "payloads.json": payloads} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	export := filepath.Join(dir, "summary.json")
	r := dnechoEnvLimit(t, 3*time.Minute, offline(t.TempDir()),
		"run", "--local-cluster", "-q", "--summary-export", export, filepath.Join(dir, "everything.js"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "FROM HANDLESUMMARY", "█ THRESHOLDS", "http_req_duration", "✓ every echo ok", "✓ timer ran after the calls",
		"✓ base64 round trip", "✓ sha256 hex", "✓ hmac", "using dnecho's built-in textSummary")
	e := readExport(t, export)
	if n := e.count("dnecho_reqs"); n != 2*3*4 {
		t.Errorf("dnecho_reqs %v, want 24 (2 VUs × 3 iterations × 4 payloads)", n)
	}
	if n := e.count("iterations"); n != 6 {
		t.Errorf("iterations %v, want 6", n)
	}
	if strings.Contains(r.all(), "Uncaught") || strings.Contains(r.all(), "panic") {
		t.Errorf("errors in the output:\n%s", r.all())
	}
}
