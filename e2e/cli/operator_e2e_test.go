package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// These tests replay k6-operator's contract (grafana/k6-operator v1.6.0,
// pkg/resources/jobs/runner.go, pkg/resources/containers/curl_start.go, pkg/segmentation;
// docs/k6-compat.md, "k6-operator") against local processes: the runners' exact command lines,
// with --address=0.0.0.0:6565 replaced by one loopback address per runner (Linux routes all of
// 127/8 to lo), readiness polled on /v1/status, then the starter's exact curl line.

var k6Once sync.Once
var k6Dir string

// k6Path is a link named k6 to the dnecho binary, as in the runner image.
func k6Path(t *testing.T) string {
	t.Helper()
	bin := dnechoBinary(t)
	k6Once.Do(func() {
		k6Dir = filepath.Join(filepath.Dir(bin), "k6bin")
		if err := os.MkdirAll(k6Dir, 0o755); err == nil {
			_ = os.Symlink(bin, filepath.Join(k6Dir, "k6"))
		}
	})
	p := filepath.Join(k6Dir, "k6")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// operatorArgs is k6-operator's runner command line for runner i (1-based) of n, with the user
// arguments, the script and the runner's loopback address.
func operatorArgs(i, n int, user []string, script, ip, name string) []string {
	args := []string{"run", "--quiet"}
	if n > 1 {
		part := func(k int) string {
			switch k {
			case 0:
				return "0"
			case n:
				return "1"
			}
			return fmt.Sprintf("%d/%d", k, n) // not reduced: 2/4 stays 2/4
		}
		seq := []string{"0"}
		for k := 1; k < n; k++ {
			seq = append(seq, part(k))
		}
		seq = append(seq, "1")
		args = append(args, "--execution-segment="+part(i-1)+":"+part(i), "--execution-segment-sequence="+strings.Join(seq, ","))
	}
	args = append(args, user...)
	return append(args, script, "--address="+ip+":6565", "--paused",
		"--tag", fmt.Sprintf("instance_id=%d", i), "--tag", "testrun_name="+name)
}

// startK6 starts the binary under the name k6 with extra environment variables.
func startK6(t *testing.T, env []string, args ...string) *liveRun {
	t.Helper()
	path := k6Path(t)
	return startBinary(t, path, append([]string{"PATH=" + k6Dir + ":" + os.Getenv("PATH")}, env...), args...)
}

// waitReady polls GET /v1/status until it answers below 400, as the operator does before it
// starts the test.
func waitReady(t *testing.T, r *liveRun, ip string) {
	t.Helper()
	var err error // the last probe's, for the failure message
	ready := func() bool {
		var resp *http.Response
		if resp, err = http.Get("http://" + ip + ":6565/v1/status"); err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode < 400
	}
	if werr := testwait.Until(runLimit, "runner on "+ip+" ready", ready); werr != nil {
		t.Fatalf("%v: %v\n%s%s", werr, err, r.stdout.String(), r.stderr.String())
	}
}

// startBody is the starter's PATCH (grafana/k6-operator pkg/types/k6status.go marshalled).
const startBody = `{"data":{"attributes":{"paused":false,"stopped":false},"id":"default","type":"status"}}`

// startRunners is the starter job: its exact curl line for every runner, one after another,
// through sh -c; with Go's HTTP client sending the same request when curl is missing.
func startRunners(t *testing.T, ips []string) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		for _, ip := range ips {
			req, _ := http.NewRequest(http.MethodPatch, "http://"+ip+":6565/v1/status", strings.NewReader(startBody))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		return
	}
	var parts []string
	for _, ip := range ips {
		parts = append(parts, fmt.Sprintf(`curl --retry 3 -X PATCH -H 'Content-Type: application/json' http://%s:6565/v1/status -d '%s' -s -w '\n{"http_code":%%{http_code},"time_total":%%{time_total},"time_starttransfer":%%{time_starttransfer},"url":"%%{url_effective}","remote_ip":"%%{remote_ip}","errormsg":"%%{errormsg}"}'`, ip, startBody))
	}
	out, err := exec.Command("sh", "-c", strings.Join(parts, ";")).CombinedOutput()
	if err != nil || strings.Count(string(out), `"http_code":200`) != len(ips) {
		t.Fatalf("starter: %v\n%s", err, out)
	}
}

// operatorRun launches n runners of a TestRun on ips and starts them; env[i] is runner i's own
// environment (a pod's).
func operatorRun(t *testing.T, n int, user []string, script string, ips []string, env func(i int) []string) []*liveRun {
	t.Helper()
	var runs []*liveRun
	for i := 1; i <= n; i++ {
		runs = append(runs, startK6(t, env(i), operatorArgs(i, n, user, script, ips[i-1], "e2e")...))
	}
	for i, r := range runs {
		waitReady(t, r, ips[i])
	}
	startRunners(t, ips)
	return runs
}

func echoTestScript(scenario string) string {
	return `
import dnecho from 'k6/x/dnecho';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const vus = new Counter('vus_started');
export const options = { scenarios: { s: ` + scenario + ` } };
const client = new dnecho.Client({ containerId: 1 });
export default function () {
  if (exec.vu.iterationInScenario === 0) vus.add(1);
  client.echo({});
}
`
}

// TestOperatorRunners: three and four runners against one mini cluster run exactly k6's share
// of VUs and iterations each, and together the single-process test.
func TestOperatorRunners(t *testing.T) {
	t.Parallel()
	_, conf := minitest.Start(t, minicluster.Options{DataNodes: 1})
	cases := []struct {
		name, scenario string
		ips            []string
		vus, iters     []float64
	}{
		{"thirds", `{ executor: 'shared-iterations', vus: 10, iterations: 100 }`,
			[]string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}, []float64{4, 3, 3}, []float64{40, 30, 30}},
		{"quarters", `{ executor: 'per-vu-iterations', vus: 10, iterations: 3 }`,
			[]string{"127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.8"}, []float64{3, 3, 2, 2}, []float64{9, 9, 6, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			script := writeRunScript(t, "test.js", echoTestScript(c.scenario))
			exports := make([]string, len(c.ips))
			runs := operatorRun(t, len(c.ips), []string{"--conf", conf}, script, c.ips, func(i int) []string {
				exports[i-1] = filepath.Join(t.TempDir(), "summary.json")
				return []string{"K6_SUMMARY_EXPORT=" + exports[i-1]}
			})
			for i, r := range runs {
				res := r.wait(t)
				if res.code != 0 {
					t.Fatalf("runner %d: exit %d\n%s", i+1, res.code, res.all())
				}
				e := readExport(t, exports[i])
				vus := e.count("vus_started")
				if vus != c.vus[i] || e.count("iterations") != c.iters[i] || e.count("dnecho_reqs") != c.iters[i] {
					t.Errorf("runner %d: %v VUs, %v iterations, %v echoes; want %v VUs and %v iterations",
						i+1, vus, e.count("iterations"), e.count("dnecho_reqs"), c.vus[i], c.iters[i])
				}
			}
		})
	}
}

// TestOperatorStops: a runner stopped through the API exits 103, one sent SIGTERM (the TestRun
// deleted) 105.
func TestOperatorStops(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "test.js", `
import { sleep } from 'k6';
export const options = { vus: 4, duration: '10m' };
export default function () { sleep(0.05); }`)
	ips := []string{"127.0.0.9", "127.0.0.10"}
	runs := operatorRun(t, 2, nil, script, ips, func(int) []string { return nil })
	out, err := exec.Command("curl", "-s", "-X", "PATCH", "-H", "Content-Type: application/json", "http://"+ips[0]+":6565/v1/status",
		"-d", `{"data":{"attributes":{"paused":false,"stopped":true},"id":"default","type":"status"}}`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"stopped":true`) {
		t.Fatalf("stop: %v %s", err, out)
	}
	runs[1].signal(t, syscall.SIGTERM)
	if res := runs[0].wait(t); res.code != 103 {
		t.Errorf("stopped through the API: exit %d, want 103\n%s", res.code, res.all())
	}
	if res := runs[1].wait(t); res.code != 105 {
		t.Errorf("SIGTERM: exit %d, want 105\n%s", res.code, res.all())
	}
}

// TestInitializerContract replays the initializer's script: `k6 archive` prints nothing on
// stdout and `k6 inspect --execution-requirements` only the JSON the operator parses.
func TestInitializerContract(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "test.js", `export const options = { vus: 10, duration: '1m' }; export default function () {}`)
	// grafana/k6-operator pkg/resources/jobs/initializer.go, the .spec.arguments form.
	archive := filepath.Join(t.TempDir(), "test.js.archived.tar")
	sh := fmt.Sprintf(`if ! command -v k6 >/dev/null 2>&1; then
  echo 'level=error msg="k6 executable not found in PATH; initializer image must contain k6"' >&2
  exit 127
fi

logs=%[1]s
if ! mkdir -p "$(dirname %[2]s)"; then
  exit 1
fi

if ! k6 archive %[3]s -e FOO="${FOO}" -O %[2]s --tag x=y 2> "${logs}"; then
  cat "${logs}"
  exit 1
fi

if ! k6 inspect --execution-requirements %[2]s 2> "${logs}"; then
  cat "${logs}"
  exit 1
fi

if grep 'level.*error' "${logs}"; then
  exit 1
fi`, filepath.Join(t.TempDir(), "k6logs"), archive, script)
	cmd := exec.Command("sh", "-c", sh)
	k6Path(t)
	cmd.Env = append(os.Environ(), "PATH="+k6Dir+":"+os.Getenv("PATH"), "FOO=bar")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("initializer: %v\n%s", err, out)
	}
	var req struct {
		MaxVUs        int    `json:"maxVUs"`
		TotalDuration string `json:"totalDuration"`
	}
	if err := json.Unmarshal(out, &req); err != nil || req.MaxVUs != 10 || req.TotalDuration != "1m30s" {
		t.Errorf("the operator parses the whole stdout as JSON: %v %+v\n%s", err, req, out)
	}
}

// TestRunsAsK6: the runner image's k6 link is dnecho under k6's name; help speaks of k6 and the
// flags k6-operator's users pass are accepted.
func TestRunsAsK6(t *testing.T) {
	t.Parallel()
	r := startK6(t, nil, "--help")
	if res := r.wait(t); res.code != 0 || !strings.Contains(res.stdout, "k6 [command]") {
		t.Errorf("k6 --help: exit %d\n%s", res.code, res.all())
	}
	script := writeRunScript(t, "test.js", `export default function () {}`)
	r = startK6(t, nil, "run", "--quiet", "--no-usage-report", script)
	if res := r.wait(t); res.code != 0 {
		t.Errorf("k6 run: exit %d\n%s", res.code, res.all())
	}
}
