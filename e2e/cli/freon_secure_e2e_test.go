package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestFreonTokensFetchedWhenEnabled(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{Tokens: true})
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "10", "-t", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 10")
	// Without a token a token-verifying DataNode refuses every call, with Ozone's result and message.
	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "2", "-t", "1", "-f", "--token", "none", "--no-retry")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "BLOCK_TOKEN_VERIFICATION_FAILED=2", "Failed to find any token")
}

func TestFreonTLS(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{TLS: true})
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "10", "-t", "2", "--tls-ca", conf+"/ca.pem")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 10")
	// Without --tls-ca the CA certificates come from the Ozone Manager, as freon takes them; without
	// an OM to ask, the error names --tls-ca.
	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1")
	if r.code != 0 {
		t.Fatalf("TLS cluster without --tls-ca: exit %d\n%s", r.code, r.all())
	}
	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1", "-D", "ozone.om.address=")
	if r.code == 0 {
		t.Fatalf("TLS cluster without --tls-ca and OM: exit 0\n%s", r.all())
	}
	mustContain(t, r, "--tls-ca")
}

// A DataNode stopped in the middle of a run: with retries the calls fail over to the next member
// and the run finishes clean; without them the failures are counted with their gRPC cause.
func TestFreonDataNodeStoppedMidRun(t *testing.T) {
	for _, tc := range []struct {
		retry  bool
		stream string
	}{{true, "new"}, {false, "new"}, {true, "reuse"}, {false, "reuse"}} {
		retry := tc.retry
		t.Run("retry="+strconv.FormatBool(retry)+",stream="+tc.stream, func(t *testing.T) {
			c, conf := minitest.Start(t, minicluster.Options{})
			args := []string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "--duration", "3s", "-t", "2", "-f", "--stream", tc.stream}
			if !retry {
				args = append(args, "--no-retry")
			}
			go afterCalls(c.DataNodes()[0], 200, c.DataNodes()[0].Stop)
			r := dnecho(t, 60*time.Second, args...)
			succ := count(t, r, `Successful executions: (\d+)`)
			fail := count(t, r, `Failures: (\d+)`)
			if succ == 0 {
				t.Fatalf("no successful call\n%s", r.all())
			}
			if retry {
				if r.code != 0 || fail != 0 {
					t.Fatalf("with retries: exit %d, %d failures\n%s", r.code, fail, r.all())
				}
				if c.DataNodes()[1].Stats().Successes == 0 {
					t.Error("no call failed over to the second DataNode")
				}
				return
			}
			if r.code != exitcode.Failure || fail == 0 {
				t.Fatalf("without retries: exit %d, %d failures\n%s", r.code, fail, r.all())
			}
			mustContain(t, r, "Failures by result: ")
			if !strings.Contains(r.all(), "UNAVAILABLE=") && !strings.Contains(r.all(), "CANCELLED=") {
				t.Errorf("failures not attributed to the stopped DataNode's gRPC status:\n%s", r.all())
			}
			if strings.Contains(r.all(), "panic") {
				t.Errorf("panic in output\n%s", r.all())
			}
		})
	}
}

func count(t *testing.T, r runResult, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(r.all())
	if m == nil {
		t.Fatalf("no %q in output\n%s", re, r.all())
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A DataNode that stalls in the middle of a run: each call waits out its deadline, then (with
// retries) moves to the next member; the run finishes in bounded time, in both stream modes.
func TestFreonDataNodeStalledMidRun(t *testing.T) {
	for _, stream := range []string{"new", "reuse"} {
		t.Run(stream, func(t *testing.T) {
			c, conf := minitest.Start(t, minicluster.Options{})
			go afterCalls(c.DataNodes()[0], 200, func() { _ = c.DataNodes()[0].SetFaults(dnsim.Faults{Stall: true}) })
			r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "--duration", "3s",
				"-t", "2", "-f", "--deadline", "200ms", "--stream", stream)
			if r.code != 0 {
				t.Fatalf("exit %d (calls should fail over after the deadline)\n%s", r.code, r.all())
			}
			if c.DataNodes()[1].Stats().Successes == 0 {
				t.Errorf("no call moved to the second DataNode after the first stalled\n%s", r.all())
			}
			if r.took > 20*time.Second {
				t.Errorf("a 3s run took %s", r.took)
			}
		})
	}
}

// afterCalls runs f once dn has answered n calls (mid-run, whatever the machine's speed), or
// after 30 s.
func afterCalls(dn *dnsim.DataNode, n uint64, f func()) {
	_ = testwait.Until(30*time.Second, "calls answered", func() bool { return dn.Stats().Successes >= n }) // f runs either way
	f()
}
