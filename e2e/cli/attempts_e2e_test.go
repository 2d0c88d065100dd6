package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// attemptRow is one row of the per-DataNode block: its attempts and failed attempts.
type attemptRow struct{ attempts, failed int64 }

// blockRows reads the rows of the per-DataNode block in out whose lines start with indent, by
// short uuid.
func blockRows(t *testing.T, out, indent string) map[string]attemptRow {
	t.Helper()
	rows := map[string]attemptRow{}
	re := regexp.MustCompile(`(?m)^` + indent + `(\S+…)\s+\S+\s+(\d+)\s+(\d+)\s`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		a, _ := strconv.ParseInt(m[2], 10, 64)
		f, _ := strconv.ParseInt(m[3], 10, 64)
		rows[m[1]] = attemptRow{a, f}
	}
	return rows
}

// retryCluster is three DataNodes of which the first in the calls' order answers after 200 ms,
// far beyond a 50 ms deadline: every call times out there first and is retried on the next.
func retryCluster(t *testing.T) (c *minicluster.Cluster, conf string) {
	t.Helper()
	c, conf = minitest.Start(t, minicluster.Options{DataNodes: 3})
	if err := c.DataNodes()[0].SetFaults(dnsim.Faults{Latency: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	return c, conf
}

// checkAttempts checks the block of a run of calls calls against retryCluster, and returns the
// slowed DataNode's failed attempts: every call tried the slowed DataNode first, and most failed
// there (on a loaded machine its own timer may fire with the deadline and answer); each
// DataNode's attempts are the failed attempts of the one before it (wherever a loaded machine
// made the next one time out too); the verdict names the slowed DataNode by its p50, which its
// own attempts, not the others', make.
func checkAttempts(t *testing.T, c *minicluster.Cluster, out, indent string, calls int64) int64 {
	// The verdict's lines are the table's indent less two.
	t.Helper()
	dns := c.DataNodes()
	rows := blockRows(t, out, indent)
	first, second := rows[dns[0].UUID()[:4]+"…"], rows[dns[1].UUID()[:4]+"…"]
	third := rows[dns[2].UUID()[:4]+"…"]
	if first.attempts != calls || first.failed < calls/2 {
		t.Errorf("the slowed DataNode: %+v, want %d attempts, most failed:\n%s", first, calls, out)
	}
	if second.attempts != first.failed || third.attempts != second.failed {
		t.Errorf("attempts %+v, %+v, %+v: each DataNode's attempts must be the failed attempts of the one before:\n%s",
			first, second, third, out)
	}
	named := regexp.MustCompile(`(?m)^` + indent[2:] + `SLOW DATANODE ` + regexp.QuoteMeta(shortName(dns[0])) + `: p50 `)
	if !named.MatchString(out) || strings.Count(out, "SLOW DATANODE ") != 1 {
		t.Errorf("the verdict does not name %s alone:\n%s", shortName(dns[0]), out)
	}
	return first.failed
}

// freon counts each attempt at the DataNode it went to, with its own time: the DataNode every
// call times out on is the one that looks slow, the one that answers does not.
func TestFreonCountsEachAttempt(t *testing.T) {
	t.Parallel()
	c, conf := retryCluster(t)
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "300", "-t", "6",
		"--deadline", "50ms", "--fail-at-end", "--report", "console")
	// A call whose three attempts all time out on a loaded machine fails the run; the figures
	// are what this test reads.
	if r.code != 0 && r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	checkAttempts(t, c, r.stdout, "  ", 300)
}

// run shows the same figures for the same calls, and its outputs get each attempt of a retried
// call as a dnecho_attempt_duration sample, at its own DataNode with its own result.
func TestRunCountsEachAttempt(t *testing.T) {
	t.Parallel()
	c, conf := retryCluster(t)
	path := writeRunScript(t, "retry.js", `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, deadline: '50ms' });
export default function () { client.echo(); }
`)
	samples := filepath.Join(t.TempDir(), "samples.json")
	r := dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "-u", "6", "-i", "300", "-o", "json="+samples, path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	failed := checkAttempts(t, c, r.stdout, "      ", 300)
	b, err := os.ReadFile(samples)
	if err != nil {
		t.Fatal(err)
	}
	slowed := regexp.MustCompile(`(?m)^.*"datanode":"` + c.DataNodes()[0].UUID() + `"[^\n]*"result":"DEADLINE_EXCEEDED"[^\n]*"metric":"dnecho_attempt_duration"`)
	if n := int64(len(slowed.FindAll(b, -1))); n != failed {
		t.Errorf("%d dnecho_attempt_duration samples of the slowed DataNode's timeouts, want %d", n, failed)
	}
	if !regexp.MustCompile(`"attempts":"2"[^\n]*"metric":"dnecho_req_duration"`).Match(b) {
		t.Error("no dnecho_req_duration sample tagged attempts=2")
	}
}

// A run of gRPC and Ratis calls has a row per DataNode and mode, each under the address its
// calls went to: the gRPC port for grpc, the Ratis port for ratis-read and ratis-write.
func TestRunRowsByMode(t *testing.T) {
	t.Parallel()
	c, conf := minitest.Start(t, minicluster.Options{DataNodes: 3})
	r := dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "-e", "DURATION=1s", "-e", "VUS=2",
		filepath.Join("..", "..", "examples", "ratis-modes.js"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	_, block, _ := strings.Cut(r.stdout, "█ PER DATANODE")
	block, _, _ = strings.Cut(block, "█ SLOW DATANODES")
	dn := c.DataNodes()[0] // the first member and the Raft leader
	ratis := fmt.Sprintf("127.0.0.1:%d", dn.RatisPort())
	for _, want := range []string{"datanode  mode ", dn.UUID()[:4] + "…     grpc         " + dn.Addr() + " ",
		dn.UUID()[:4] + "…     ratis-read   " + ratis + " ", dn.UUID()[:4] + "…     ratis-write  " + ratis + " "} {
		if !strings.Contains(block, want) {
			t.Errorf("no %q in the block:\n%s", want, block)
		}
	}
}
