package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// outputScript is the scenario of the output tests: one VU (so no two samples of one series
// share a nanosecond timestamp, which InfluxDB would merge), calls spread over
// every replica (so the datanode tag takes several values), long enough for the scheduler's
// vus samples, a check and thresholds.
const outputScript = `
import dnecho from 'k6/x/dnecho';
import { check } from 'k6';
export const options = {
  scenarios: { echo: { executor: 'constant-vus', vus: 1, duration: __ENV.DURATION || '2500ms' } },
  thresholds: { dnecho_req_failed: ['rate<0.01'], 'dnecho_req_duration{result:SUCCESS}': ['p(99)<1000'] },
};
const client = new dnecho.Client({ containerId: 1, target: 'all', scm: __ENV.DNECHO_SCM });
export default function () {
  check(client.echo({ payloadResp: 64 }), { 'echo ok': (r) => r.ok });
}
`

// runOutputs runs outputScript against --local-cluster with extra environment and arguments and
// returns the run and its summary export.
func runOutputs(t *testing.T, env []string, args ...string) (runResult, summaryExport) {
	t.Helper()
	script := writeRunScript(t, "outputs.js", outputScript)
	export := filepath.Join(t.TempDir(), "summary.json")
	all := append([]string{"run", "-q", "--local-cluster", "--summary-export", export}, args...)
	r := dnechoEnv(t, env, append(all, script)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	return r, readExport(t, export)
}

var accountRE = regexp.MustCompile(`output (\S+) \(([^)]*)\): ([\d,]+) samples written, ([\d,]+) dropped`)

// accounts reads the end-of-run lines: output type → written, dropped.
func accounts(t *testing.T, r runResult) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	for _, m := range accountRE.FindAllStringSubmatch(r.all(), -1) {
		w, _ := strconv.ParseInt(strings.ReplaceAll(m[3], ",", ""), 10, 64)
		d, _ := strconv.ParseInt(strings.ReplaceAll(m[4], ",", ""), 10, 64)
		out[m[1]] = [2]int64{w, d}
	}
	return out
}

// trendCount is a Trend's count from the summary export (its "count" stat is not exported by
// default; the Counter dnecho_reqs counts the same calls).
func reqs(t *testing.T, e summaryExport) int64 {
	t.Helper()
	n := e.count("dnecho_reqs")
	if n <= 0 {
		t.Fatalf("no dnecho_reqs in the summary: %v", e.Metrics["dnecho_reqs"])
	}
	return int64(n)
}

// jsonLine is one line of the json output (`-o json=FILE`, freon's `-o json`): a Metric
// declaration or a Point with its value and tags.
type jsonLine struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Value float64           `json:"value"`
		Tags  map[string]string `json:"tags"`
	} `json:"data"`
}
