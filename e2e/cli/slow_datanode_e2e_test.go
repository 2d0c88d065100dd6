package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// Every emulated DataNode answers after baseLatency, the slowed one after slowLatency: the
// injected latencies, not the machine's noise, decide each DataNode's p99, so a run without a
// slowed DataNode does not name one (it would take a p99 of 2 × 5 ms and more) and a run with one
// does (40 ms against 5 ms and a little). slowCalls gives each DataNode 1000 calls, so its p99
// leaves out its ten slowest: the first calls, which wait for the connections, and the stalls of a
// loaded machine.
const (
	baseLatency = 5 * time.Millisecond
	slowLatency = 40 * time.Millisecond
	slowCalls   = "3000"
)

// slowCluster starts three DataNodes at baseLatency; slow >= 0 slows that one to slowLatency.
func slowCluster(t *testing.T, slow int) (c *minicluster.Cluster, conf string) {
	t.Helper()
	c, conf = minitest.Start(t, minicluster.Options{DataNodes: 3, Faults: dnsim.Faults{Latency: baseLatency}})
	if slow >= 0 {
		if err := c.DataNodes()[slow].SetFaults(dnsim.Faults{Latency: slowLatency}); err != nil {
			t.Fatal(err)
		}
	}
	return c, conf
}

// slowLine is the verdict's line for a DataNode named name (the short uuid and the address, or
// the whole uuid), exactly in its documented form, after indent: the injected latency moves its
// whole distribution, so its p50 is what names it.
func slowLine(indent, name string) *regexp.Regexp {
	const ms = `[0-9]+(\.[0-9]+)?`
	return regexp.MustCompile(`(?m)^` + indent + `SLOW DATANODE ` + regexp.QuoteMeta(name) +
		`: p50 ` + ms + ` ms vs ` + ms + ` ms for the other 2 \(p99 ` + ms + ` vs ` + ms + `\)$`)
}

// shortName is dn as the verdict names it where its address is known.
func shortName(dn *dnsim.DataNode) string { return dn.UUID()[:4] + "… (" + dn.Addr() + ")" }

func TestFreonNamesTheSlowDataNode(t *testing.T) {
	t.Parallel()
	c, conf := slowCluster(t, 1)
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", slowCalls, "-t", "6",
		"--target", "all", "--report", "console")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	slow := c.DataNodes()[1]
	if !slowLine("", shortName(slow)).MatchString(r.stdout) {
		t.Errorf("no SLOW DATANODE line for %s (%s):\n%s", slow.UUID(), slow.Addr(), r.stdout)
	}
	if n := strings.Count(r.stdout, "SLOW DATANODE "); n != 1 {
		t.Errorf("%d DataNodes named slow, want 1:\n%s", n, r.stdout)
	}
	mustContain(t, r, "  its DataNode time is what is high: ")
	// The block follows the Java-compatible report, one row per DataNode with its calls.
	report, block, ok := strings.Cut(r.stdout, "Successful executions: "+slowCalls+"\n\nPer DataNode (")
	if !ok {
		t.Fatalf("no per-DataNode block right after the report:\n%s", r.stdout)
	}
	if strings.Contains(report, "SLOW DATANODE ") {
		t.Errorf("the verdict comes before the report ends:\n%s", r.stdout)
	}
	for _, dn := range c.DataNodes() {
		row := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(dn.UUID()[:4]+"…") + ` +` + regexp.QuoteMeta(dn.Addr()) + ` +1000 `)
		if !row.MatchString(block) {
			t.Errorf("no row of 1000 calls for %s (%s):\n%s", dn.UUID(), dn.Addr(), block)
		}
	}
}

// With -o the outputs get the network watch's samples too.
func TestFreonNamesNoDataNodeWhenNoneIsSlow(t *testing.T) {
	t.Parallel()
	c, conf := slowCluster(t, -1)
	samples := filepath.Join(t.TempDir(), "samples.json")
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", slowCalls, "-t", "6",
		"--target", "all", "--report", "log", "-o", "json="+samples)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if strings.Contains(r.all(), "SLOW DATANODE ") {
		t.Errorf("a DataNode named slow:\n%s", r.all())
	}
	mustContain(t, r, "INFO dnecho.freon: Per DataNode (", "INFO dnecho.freon: No slow DataNode: the p50 and p99 of each of the 3 DataNodes")
	if runtime.GOOS != "linux" {
		return // TCP_INFO is read on Linux only
	}
	b, err := os.ReadFile(samples)
	if err != nil {
		t.Fatal(err)
	}
	for _, dn := range c.DataNodes() {
		if !regexp.MustCompile(`"datanode":"` + dn.UUID() + `"[^\n]*"metric":"dnecho_tcp_rtt"`).Match(b) {
			t.Errorf("no dnecho_tcp_rtt sample of DataNode %s in the json output", dn.UUID())
		}
	}
}

// --slow-factor moves the bar: at 20 the 40 ms DataNode is within it.
func TestFreonSlowFactor(t *testing.T) {
	t.Parallel()
	_, conf := slowCluster(t, 1)
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1500", "-t", "6",
		"--target", "all", "--report", "log", "--slow-factor", "20")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if strings.Contains(r.all(), "SLOW DATANODE ") {
		t.Errorf("a DataNode named slow at --slow-factor 20:\n%s", r.all())
	}
	bad := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "--slow-factor", "1")
	if bad.code != exitcode.Usage || !strings.Contains(bad.stderr, "--slow-factor 1: want a number above 1") {
		t.Errorf("--slow-factor 1: exit %d\n%s", bad.code, bad.all())
	}
}

// slowScript spreads calls over every DataNode and holds the verdict's gauge at zero.
const slowScript = `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, target: 'all' });
export const options = { thresholds: { dnecho_slow_datanodes: ['value==0'] } };
export default function () { client.echo(); }
`

// runSlow runs slowScript with slowCalls iterations on 6 VUs against the cluster of conf.
func runSlow(t *testing.T, conf string, extra ...string) runResult {
	t.Helper()
	path := writeRunScript(t, "slow.js", slowScript)
	args := append([]string{"run", "-q", "--conf", conf, "-u", "6", "-i", slowCalls}, extra...)
	return dnecho(t, 2*time.Minute, append(args, path)...)
}

// The summary names the slow DataNode in the verdict's exact form, and the threshold on
// dnecho_slow_datanodes fails the run with the thresholds' exit code.
func TestRunNamesTheSlowDataNode(t *testing.T) {
	t.Parallel()
	c, conf := slowCluster(t, 2)
	r := runSlow(t, conf)
	if r.code != int(exitcode.ThresholdsFailed) {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.ThresholdsFailed, r.all())
	}
	slow := c.DataNodes()[2]
	if !slowLine("    ", shortName(slow)).MatchString(r.stdout) {
		t.Errorf("no SLOW DATANODE line for %s (%s):\n%s", slow.UUID(), slow.Addr(), r.stdout)
	}
	if n := strings.Count(r.stdout, "SLOW DATANODE "); n != 1 {
		t.Errorf("%d DataNodes named slow, want 1:\n%s", n, r.stdout)
	}
	mustContain(t, r, "✗ 'value==0' value=1", "█ PER DATANODE", "█ SLOW DATANODES", "its DataNode time is what is high")
	_, block, _ := strings.Cut(r.stdout, "█ PER DATANODE")
	for _, dn := range c.DataNodes() {
		if !strings.Contains(block, dn.UUID()[:4]+"…     "+dn.Addr()) {
			t.Errorf("no row for %s (%s):\n%s", dn.UUID(), dn.Addr(), block)
		}
	}
}

// With no slow DataNode nothing is named and the threshold holds.
func TestRunNamesNoDataNodeWhenNoneIsSlow(t *testing.T) {
	t.Parallel()
	_, conf := slowCluster(t, -1)
	r := runSlow(t, conf)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if strings.Contains(r.stdout, "SLOW DATANODE ") {
		t.Errorf("a DataNode named slow:\n%s", r.stdout)
	}
	mustContain(t, r, "✓ 'value==0' value=0", "No slow DataNode: the p50 and p99 of each of the 3 DataNodes")
}

// DNECHO_SLOW_FACTOR (and --slow-factor) move the bar; a factor of 1 or less is refused.
func TestRunSlowFactor(t *testing.T) {
	t.Parallel()
	_, conf := slowCluster(t, 0)
	path := writeRunScript(t, "slow.js", slowScript)
	r := dnechoWithLimit(t, 2*time.Minute, []string{"DNECHO_SLOW_FACTOR=20"}, "", "run", "-q", "--conf", conf, "-u", "6", "-i", "1500", path)
	if r.code != 0 || strings.Contains(r.stdout, "SLOW DATANODE ") {
		t.Errorf("DNECHO_SLOW_FACTOR=20: exit %d\n%s", r.code, r.all())
	}
	bad := dnecho(t, runLimit, "run", "-q", "--slow-factor", "0.5", path)
	if bad.code != int(exitcode.InvalidConfig) || !strings.Contains(bad.stderr, "--slow-factor 0.5: want a number above 1") {
		t.Errorf("--slow-factor 0.5: exit %d\n%s", bad.code, bad.all())
	}
}

// --slow-datanode names a DataNode of the cluster and a duration.
func TestClusterSlowDataNodeFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ value, want string }{
		{"4=5ms", `--slow-datanode "4=5ms": want N=LATENCY with N a DataNode from 1 to 3, e.g. 2=5ms`},
		{"2", `--slow-datanode "2": want N=LATENCY`},
		{"2=fast", `--slow-datanode "2=fast": want N=LATENCY with LATENCY a duration such as 5ms`},
	} {
		r := dnecho(t, 30*time.Second, "cluster", "--datanodes", "3", "--slow-datanode", tc.value)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--slow-datanode %s: exit %d, want %d and %q\n%s", tc.value, r.code, exitcode.Usage, tc.want, r.all())
		}
	}
}

// The live gauge: an abortOnFail threshold on dnecho_slow_datanodes stops a one-minute run at
// one of its first threshold periods (2 s), once each DataNode has its 100 calls.
func TestRunAbortsOnASlowDataNode(t *testing.T) {
	t.Parallel()
	c, conf := slowCluster(t, 0)
	path := writeRunScript(t, "slow.js", strings.Replace(slowScript, "['value==0']",
		"[{ threshold: 'value==0', abortOnFail: true }]", 1))
	r := dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "-u", "6", "--duration", "1m", path)
	if r.code != int(exitcode.ThresholdsFailed) || !strings.Contains(r.stderr, "abortOnFail") {
		t.Fatalf("exit %d, want %d for abortOnFail\n%s", r.code, exitcode.ThresholdsFailed, r.all())
	}
	if r.took > 30*time.Second {
		t.Errorf("took %s: the slow DataNode did not stop the run during the test", r.took)
	}
	slow := c.DataNodes()[0]
	if !slowLine("    ", shortName(slow)).MatchString(r.stdout) {
		t.Errorf("the summary does not name %s (%s):\n%s", slow.UUID(), slow.Addr(), r.stdout)
	}
}

// A distributed test of two instances, each with half the calls: the aggregator's summary
// has the per-DataNode block and names the slow DataNode (by its whole uuid: the instances'
// samples carry no addresses), and its dnecho_slow_datanodes fails the whole test, so the
// aggregator and both instances exit 99.
func TestAggregateNamesTheSlowDataNode(t *testing.T) {
	t.Parallel()
	c, conf := slowCluster(t, 1)
	addr := freeAddr(t)
	report := filepath.Join(t.TempDir(), "report.html")
	agg := startCmd(t, "aggregate", "--listen", addr, "--report", report)
	agg.waitFor(t, "aggregator listening")
	path := writeRunScript(t, "slow.js", slowScript)
	var runs []*liveRun
	for _, seg := range []string{"0:1/2", "1/2:1"} {
		runs = append(runs, startRun(t, "-q", "--conf", conf, "-u", "6", "-i", slowCalls, "--aggregator", addr,
			"--execution-segment", seg, "--execution-segment-sequence", "0,1/2,1", path))
	}
	for i, r := range runs {
		if res := r.wait(t); res.code != int(exitcode.ThresholdsFailed) || !strings.Contains(res.stderr, "on the whole test") {
			t.Errorf("instance %d: exit %d, want %d from the whole test's verdict\n%s", i+1, res.code, exitcode.ThresholdsFailed, res.all())
		}
	}
	res := agg.wait(t)
	if res.code != int(exitcode.ThresholdsFailed) {
		t.Fatalf("aggregator: exit %d, want %d\n%s", res.code, exitcode.ThresholdsFailed, res.all())
	}
	slow := c.DataNodes()[1]
	if !slowLine("    ", slow.UUID()).MatchString(res.stdout) {
		t.Errorf("no SLOW DATANODE line for %s:\n%s", slow.UUID(), res.stdout)
	}
	if n := strings.Count(res.stdout, "SLOW DATANODE "); n != 1 {
		t.Errorf("%d DataNodes named slow, want 1:\n%s", n, res.stdout)
	}
	mustContain(t, res, "✗ 'value==0' value=1", "█ PER DATANODE", "█ SLOW DATANODES", "INSTANCES (2 of 2)")
	_, block, _ := strings.Cut(res.stdout, "█ PER DATANODE")
	for _, dn := range c.DataNodes() {
		if !regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(dn.UUID()) + ` +- +1000 `).MatchString(block) {
			t.Errorf("no row of 1000 calls for %s:\n%s", dn.UUID(), block)
		}
	}
	// The whole test's HTML report has the network chart's data from every instance and the
	// same verdict.
	doc := readReport(t, report)
	if !doc.Network || len(doc.Servers) != 3 || len(doc.Verdict) == 0 || !strings.HasPrefix(doc.Verdict[0], "SLOW DATANODE "+slow.UUID()+":") {
		t.Errorf("report: network chart %v, %d DataNodes, verdict %q", doc.Network, len(doc.Servers), doc.Verdict)
	}
	if runtime.GOOS == "linux" {
		for _, s := range doc.Servers {
			if s.Network == nil {
				t.Errorf("report: DataNode %s has no RTT", s.Name)
			}
		}
	}
}

// A run that calls one DataNode (the default target, Java's first member; --ratis, which goes
// to the leader) has its per-DataNode block and nothing to say about a verdict, in freon's
// report and log and in run's summary (the demo's script); no line suggests an option.
func TestOneDataNodeSaysNothingOfAVerdict(t *testing.T) {
	t.Parallel()
	_, conf := minitest.Start(t, minicluster.Options{DataNodes: 3})
	quiet := func(t *testing.T, r runResult) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.all())
		}
		for _, no := range []string{"verdict", "SLOW DATANODE", "No slow", "target all", "█ SLOW DATANODES"} {
			if strings.Contains(r.all(), no) {
				t.Errorf("%q in the output of a run of one DataNode:\n%s", no, r.all())
			}
		}
	}
	for _, args := range [][]string{{"--report", "console"}, {"--report", "log"}, {"--ratis", "--report", "console"}} {
		r := dnecho(t, time.Minute, append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "300", "-t", "2"}, args...)...)
		quiet(t, r)
		mustContain(t, r, "Per DataNode (")
	}
	r := dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "-e", "DURATION=1s", "-e", "VUS=2", filepath.Join("..", "..", "examples", "quickstart.js"))
	quiet(t, r)
	mustContain(t, r, "█ PER DATANODE")
}
