package cli

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

const echoScript = `
import dnecho from 'k6/x/dnecho';
import { check } from 'k6';
export const options = {
  scenarios: { ar: { executor: 'constant-arrival-rate', rate: 200, duration: '1s', preAllocatedVUs: 4 } },
  thresholds: { dnecho_req_failed: ['rate<0.01'], checks: ['rate==1'] },
};
const client = new dnecho.Client({ containerId: 1, target: 'all', scm: __ENV.DNECHO_SCM });
export default function () {
  check(client.echo({ payloadResp: 64 }), { 'echo ok': (r) => r.ok });
}
`

// TestRunLocalCluster runs an Echo script against --local-cluster: the module finds the
// in-process cluster, the per-DataNode breakdown and the start-delay trend are in the summary.
func TestRunLocalCluster(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "echo.js", echoScript)
	export := filepath.Join(t.TempDir(), "s.json")
	r := dnecho(t, runLimit, "run", "--local-cluster", "--local-cluster-datanodes", "2", "--summary-export", export, path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "local cluster: SCM 127.0.0.1:", "✓ echo ok", "dnecho_req_duration", "{ datanode:", "dnecho_iteration_start_delay")
	e := readExport(t, export)
	// 200 iterations are due in the second, one echo each. On a loaded machine some find no idle
	// VU and are dropped, or are still undispatched at the end: count, do not time.
	reqs, dropped := e.count("dnecho_reqs"), max(e.count("dropped_iterations"), 0)
	if reqs < 1 || reqs+dropped > 200 || reqs != e.count("iterations") {
		t.Errorf("dnecho_reqs %v, dropped %v, iterations %v: want one echo per iteration, at most 200 due",
			reqs, dropped, e.count("iterations"))
	}
	// Two DataNodes, three metrics broken down per DataNode (duration, requests, failure rate),
	// and on Linux the network watch's two (TCP RTT, retransmits).
	want := 6
	if runtime.GOOS == "linux" {
		want = 10
	}
	if n := strings.Count(r.stdout, "{ datanode:"); n != want {
		t.Errorf("%d breakdown lines, want one per DataNode for each of dnecho_req_duration, dnecho_reqs, dnecho_req_failed "+
			"(and dnecho_tcp_rtt, dnecho_tcp_retransmits on Linux), %d:\n%s", n, want, r.stdout)
	}
}

// TestRunExternalCluster points a script at a separately started cluster with -e DNECHO_SCM, the
// way `make bench` and real clusters are used.
func TestRunExternalCluster(t *testing.T) {
	t.Parallel()
	c, _ := minitest.Start(t, minicluster.Options{DataNodes: 1})
	path := writeRunScript(t, "echo.js", echoScript)
	r := dnecho(t, runLimit, "run", "-q", "-e", "DNECHO_SCM="+strings.Join(c.SCMAddrs(), ","), path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "✓ echo ok")
}
