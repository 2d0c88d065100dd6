package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestAggregateOperatorRun: three k6-operator runners carry --aggregator in their user
// arguments; a threshold each share passes fails on the whole test, so every runner and the
// aggregator exit 99, and the aggregator writes one summary, handleSummary input and report.
func TestAggregateOperatorRun(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	dir := t.TempDir()
	agg := startCmd(t, "aggregate", "--listen", addr, "--summary-export", filepath.Join(dir, "export.json"),
		"--summary-data", filepath.Join(dir, "data.json"), "--report", filepath.Join(dir, "report.html"))
	agg.waitFor(t, "aggregator listening")
	script := writeRunScript(t, "test.js", `
import { check } from 'k6';
export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 3, iterations: 300 } },
  thresholds: { iterations: ['count<200'], checks: ['rate==1'] },
};
export default function () { check(1, { 'one': (v) => v === 1 }); }`)
	ips := []string{"127.0.0.12", "127.0.0.13", "127.0.0.14"}
	runs := operatorRun(t, 3, []string{"--aggregator", addr}, script, ips, func(int) []string { return nil })
	for i, r := range runs {
		if res := r.wait(t); res.code != 99 || !strings.Contains(res.all(), "on the whole test") {
			t.Errorf("runner %d: exit %d, want 99 from the whole test's verdict\n%s", i+1, res.code, res.all())
		}
	}
	res := agg.wait(t)
	if res.code != 99 {
		t.Fatalf("aggregator: exit %d, want 99\n%s", res.code, res.all())
	}
	mustContain(t, res, "INSTANCES (3 of 3)", "segment 0:1/3", "segment 2/3:1", "✗ 'count<200' count=300", "✓ one")
	if e := readExport(t, filepath.Join(dir, "export.json")); e.count("iterations") != 300 {
		t.Errorf("export: %v iterations, want 300", e.count("iterations"))
	}
	for _, f := range []string{"data.json", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The report's thresholds panel has the whole test's thresholds, the failed one failing.
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(html), `{"metric":"iterations","source":"count\u003c200","ok":false`) {
		t.Errorf("report.html has no failing iterations threshold in its thresholds panel")
	}
}

// TestAggregateLostInstance: an instance killed during the test is reported lost; the other
// ends normally and the aggregator exits 255.
func TestAggregateLostInstance(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	agg := startCmd(t, "aggregate", "--listen", addr)
	agg.waitFor(t, "aggregator listening")
	script := writeRunScript(t, "test.js", `
import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { vus: 2, duration: '2s' };
export default function () { if (exec.scenario.iterationInTest === 0) console.log('RUNNING'); sleep(0.05); }`)
	seq := []string{"--execution-segment-sequence", "0,1/2,1", "--aggregator", addr}
	doomed := startRun(t, append([]string{"-q", "--execution-segment", "0:1/2", "--duration", "10m"}, append(seq, script)...)...)
	survivor := startRun(t, append([]string{"-q", "--execution-segment", "1/2:1"}, append(seq, script)...)...)
	agg.waitFor(t, "segment 0:1/2, from")
	doomed.waitFor(t, "RUNNING")
	if err := doomed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = doomed.cmd.Wait()
	if res := survivor.wait(t); res.code != 0 || !strings.Contains(res.all(), "lost instance") {
		t.Errorf("survivor: exit %d\n%s", res.code, res.all())
	}
	res := agg.wait(t)
	if res.code != 255 {
		t.Fatalf("aggregator: exit %d, want 255\n%s", res.code, res.all())
	}
	mustContain(t, res, "was lost after", "LOST:", "INSTANCES (2 of 2)")
}

// TestAggregatorLateWithToken: the runners start paused long before the aggregator (a pod
// scheduled later), with a limit far shorter than that wait: while paused they keep trying,
// then present the shared token; a runner with another token is refused.
func TestAggregatorLateWithToken(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	script := writeRunScript(t, "test.js", `
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 2, iterations: 20 } }, thresholds: { iterations: ['count==20'] } };
export default function () {}`)
	token := []string{"DNECHO_AGGREGATOR_TOKEN=s3cret", "DNECHO_AGGREGATOR_TIMEOUT=10ms"}
	ips := []string{"127.0.0.22", "127.0.0.23"}
	var runs []*liveRun
	for i := 1; i <= 2; i++ {
		runs = append(runs, startK6(t, token, operatorArgs(i, 2, []string{"--aggregator", addr}, script, ips[i-1], "late")...))
	}
	for i, r := range runs {
		r.waitFor(t, "not reachable yet")
		waitReady(t, r, ips[i])
	}
	agg := startBinary(t, dnechoBinary(t), []string{"DNECHO_AGGREGATOR_TOKEN=s3cret"}, "aggregate", "--listen", addr)
	agg.waitFor(t, "aggregator listening")
	intruder := startBinary(t, dnechoBinary(t), []string{"DNECHO_AGGREGATOR_TOKEN=guess"}, "run", "-q", "--aggregator", addr,
		"--execution-segment", "0:1/2", "--execution-segment-sequence", "0,1/2,1", script)
	if res := intruder.wait(t); !strings.Contains(res.all(), "wrong token") {
		t.Errorf("intruder: exit %d, not refused for its token\n%s", res.code, res.all())
	}
	startRunners(t, ips)
	for i, r := range runs {
		if res := r.wait(t); res.code != 0 {
			t.Errorf("runner %d: exit %d\n%s", i+1, res.code, res.all())
		}
	}
	res := agg.wait(t)
	if res.code != 0 {
		t.Fatalf("aggregator: exit %d\n%s", res.code, res.all())
	}
	mustContain(t, res, "INSTANCES (2 of 2)", "wrong token")
}

// TestAggregatorSettingsRefused: a bad limit is one line naming it, exit 104.
func TestAggregatorSettingsRefused(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "test.js", `export default function () {}`)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"DNECHO_AGGREGATOR_TIMEOUT=soon"}, nil, `DNECHO_AGGREGATOR_TIMEOUT="soon"`},
		{nil, []string{"--aggregator-timeout", "0s"}, "--aggregator-timeout"},
		{[]string{"DNECHO_AGGREGATOR_CA=/nonexistent/ca.pem"}, nil, "DNECHO_AGGREGATOR_CA: open /nonexistent/ca.pem"},
		{nil, []string{"--aggregator-ca", script}, "--aggregator-ca " + script + ": no PEM certificate"},
	} {
		res := dnechoEnv(t, tc.env, append(append([]string{"run", "-q", "--aggregator", "127.0.0.1:1"}, tc.args...), script)...)
		if res.code != 104 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v %v: exit %d, want 104 naming %s\n%s", tc.env, tc.args, res.code, tc.want, res.all())
		}
	}
	if res := dnecho(t, runLimit, "aggregate", "--listen", "127.0.0.1:0", "--tls-cert", script); res.code != 104 ||
		!strings.Contains(res.stderr, "--tls-cert and --tls-key go together") {
		t.Errorf("aggregate --tls-cert alone: exit %d\n%s", res.code, res.all())
	}
}
