package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// The four DataNode cases of Ozone's smoke test (hadoop-ozone/dist/src/main/smoketest/freon/
// echoRPCLoad.robot): each must exit 0 and print "Successful executions: 1".
func TestFreonSmokeCases(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	cases := [][]string{
		{"--payload-req=1", "--payload-resp=1"},
		{"--payload-req=1"},
		{"--payload-resp=1"},
		{"--sleep-time-ms=0", "--clients=1"},
	}
	for _, extra := range cases {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			args := append([]string{"freon", "dn-echo", "--conf", conf, "-t=1", "-n=1", "--container-id=2"}, extra...)
			r := dnecho(t, 30*time.Second, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			mustContain(t, r, "Successful executions: 1", "Failures: 0", "type=TIMER, name=rpc-payload, count=1,", readOnlyForced)
		})
	}
}

// readOnlyForced is freon's WARN when it forces --read-only (without --ratis, as Java freon does).
const readOnlyForced = "Read only is not set to true for GRPC, setting it to true"

func TestFreonAliasAndCounts(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	r := dnecho(t, 60*time.Second, "freon", "dne", "--conf", conf, "--container-id", "1", "-n", "500", "-t", "4", "--stream", "reuse")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 500", "count=500,")
	// Default target: every call went to the pipeline's first member.
	if got := c.DataNodes()[0].Stats().Successes; got != 500 {
		t.Errorf("first DataNode served %d calls, want 500", got)
	}
}

func TestFreonTargetAllSpreadsOverReplicas(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "300", "-t", "3", "--target", "all")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	for i, dn := range c.DataNodes() {
		if got := dn.Stats().Successes; got != 100 {
			t.Errorf("DataNode %d served %d calls, want 100", i, got)
		}
	}
}

func TestFreonUnknownContainer(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "99", "-n", "1")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Failure, r.all())
	}
	mustContain(t, r, "Container #99 not found")
	if strings.Contains(r.all(), "panic") || strings.Contains(r.all(), "goroutine ") {
		t.Errorf("stack trace in output:\n%s", r.all())
	}
}

func TestFreonSCMUnreachableIsBounded(t *testing.T) {
	// Nothing listens on port 1; the retry budget is shortened through -D like Ozone's keys.
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--scm", "127.0.0.1:1", "--container-id", "1", "-n", "1",
		"-D", "hdds.scmclient.failover.retry.interval=100ms", "-D", "hdds.scmclient.failover.max.retry=3",
		"-D", "hdds.scmclient.max.retry.timeout=300ms")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "127.0.0.1:1")
	if r.took > 20*time.Second {
		t.Errorf("took %s to give up", r.took)
	}
}

func TestFreonLookupTimeoutBoundsWait(t *testing.T) {
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--scm", "127.0.0.1:1", "--container-id", "1", "-n", "1", "--lookup-timeout", "2s")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "no SCM answered at 127.0.0.1:1", "still waiting for SCM")
	if r.took > 15*time.Second {
		t.Errorf("took %s with --lookup-timeout 2s", r.took)
	}
}

func TestFreonFollowerSCMAnswersFirst(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{SCMs: 3})
	if err := c.HA().SetLeader(2); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "10", "-t", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 10")
	if c.HA().Node(0).Requests() == 0 {
		t.Errorf("the first SCM (a follower) was never asked: the test did not exercise failover")
	}
	// The follower's answer is said for what it is; nothing after it says SCM has not answered.
	addrs := c.SCMAddrs()
	// (The pause is the 2 s interval less the attempt's own time, so its figure is not checked.)
	redirect := "INFO dnecho.freon: SCM scm1 (" + addrs[0] + ") is not the leader; it names scm3 (" + addrs[2] + ") as the leader: trying it in "
	at := strings.Index(r.stderr, redirect)
	if at < 0 {
		t.Fatalf("no line %q:\n%s", redirect, r.all())
	}
	if strings.Contains(r.stderr[at:], "still waiting for SCM") {
		t.Errorf("still waiting for SCM after it answered:\n%s", r.all())
	}
}

// The first SCM of the service hangs (accepts connections, never answers, as a SIGSTOPped SCM):
// dnecho leaves it after its quiet time, names it in one line, and runs against the next one,
// long before the lookup timeout. The quiet time here is -D hdds.scmclient.rpc.timeout; the
// retry interval is scaled down with it (5 s and 2 s by default).
func TestFreonHungFirstSCM(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{SCMs: 3})
	if err := c.HangSCM(0); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "10", "-t", "2",
		"-D", "hdds.scmclient.rpc.timeout=1s", "-D", "hdds.scmclient.failover.retry.interval=400ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	addrs := c.SCMAddrs()
	hung := "WARN dnecho.freon: SCM scm1 (" + addrs[0] + ") did not answer in 1s: trying scm2 (" + addrs[1] + ")\n"
	at, target := strings.Index(r.stderr, hung), strings.Index(r.stderr, "Target: container 1")
	if at < 0 || target < at {
		t.Fatalf("want %q before the target line:\n%s", hung, r.all())
	}
	mustContain(t, r, "Successful executions: 10")
	if r.took < time.Second || r.took > 30*time.Second {
		t.Errorf("took %s: want at least the quiet time (1s) and well inside the lookup timeout (60s)", r.took)
	}
}

func TestFreonDataNodeDownFailsOver(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	c.DataNodes()[0].Stop()
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "50", "-t", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 50")
	if got := c.DataNodes()[1].Stats().Successes; got != 50 {
		t.Errorf("second DataNode served %d, want 50 (fail-over from the stopped first)", got)
	}
}

func TestFreonDataNodeErrorsCountedWithCause(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	for _, dn := range c.DataNodes() {
		if err := dn.SetFaults(dnsim.Faults{ErrorRate: 1}); err != nil {
			t.Fatal(err)
		}
	}
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "20", "-t", "2", "-f", "--no-retry")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Failures: 20", "Successful executions: 0", "Expected 20 --number-of-tests objects!, successfully executed 0",
		"CONTAINER_INTERNAL_ERROR=20", "One or more freon test is failed.")
}

func TestFreonStalledFirstDataNodeFailsOver(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	if err := c.DataNodes()[0].SetFaults(dnsim.Faults{Stall: true}); err != nil {
		t.Fatal(err)
	}
	// A stalled first member: each call waits out the deadline, then fails over to the next.
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "4", "-t", "2", "--deadline", "300ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 4")
}

func TestFreonBadInput(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--payload-req", "-1"}, exitcode.Usage, "OM echo request payload size should be positive value or zero."},
		{[]string{"--payload-resp", "-5"}, exitcode.Usage, "OM echo response payload size should be positive value or zero."},
		{[]string{"-n", "0"}, exitcode.Usage, "Invalid command, the testNo must be a positive integer"},
		{[]string{"--duration", "-3s"}, exitcode.Usage, "the runtime must be given, and must not be negative"},
		{[]string{"--duration", "500ms"}, exitcode.Usage, "error: Incomplete command, the runtime must be given, and must not be negative"},
		{[]string{"--duration", "0"}, exitcode.Usage, "error: Incomplete command, the runtime must be given, and must not be negative"},
		{[]string{"--payload-req", "99999999999"}, exitcode.Usage, "invalid --payload-req 99999999999 KB"},
		{[]string{"--payload-req", "32769"}, exitcode.Usage, "32768 KB (32 MiB) message limit"},
		{[]string{"--sleep-time-ms", "3000000000"}, exitcode.Usage, `invalid argument "3000000000" for "--sleep-time-ms" flag: want a whole number of milliseconds from 0 to 2147483647`},
		{[]string{"--sleep-time-ms", "-5"}, exitcode.Usage, `invalid argument "-5" for "--sleep-time-ms"`},
		{[]string{"--ratis", "--stream", "reuse"}, exitcode.Usage, `--stream "reuse": does not apply to the Ratis transport`},
		{[]string{"--stream", "sideways"}, exitcode.Usage, `invalid argument "sideways" for "--stream" flag: use new or reuse`},
		{[]string{"--threads", "abc"}, exitcode.Usage, "threads"},
		{[]string{"--threads", "100000000"}, exitcode.Usage, "invalid --threads 100000000: want 1 to 10000"},
		{[]string{"--clients", "100000"}, exitcode.Usage, `invalid argument "100000" for "--clients" flag: want 1 to 1024`},
		{[]string{"--clients", "0"}, exitcode.Usage, `invalid argument "0" for "--clients" flag: want a whole number from 1 to 1024`},
		{[]string{"--deadline", "0s"}, exitcode.Usage, `invalid argument "0s" for "--deadline" flag: must be at least 1ms`},
		{[]string{"--lookup-timeout", "0s"}, exitcode.Usage, `invalid argument "0s" for "--lookup-timeout" flag: must be at least 1ms`},
		{[]string{"--lookup-timeout", "-1s"}, exitcode.Usage, `invalid argument "-1s" for "--lookup-timeout" flag: must be at least 1ms`},
		{[]string{"--scm", "host:99999"}, exitcode.Usage, `invalid argument "host:99999" for "--scm" flag: port "99999" is not a number from 1 to 65535`},
		{[]string{"--scm", ":-5"}, exitcode.Usage, `for "--scm" flag: has no host`},
		{[]string{"--scm", "host:abc"}, exitcode.Usage, `for "--scm" flag: port "abc"`},
		{[]string{"--scm", "host:0"}, exitcode.Usage, `for "--scm" flag: port "0"`},
		{[]string{"--target", "nowhere"}, exitcode.Usage, "--target nowhere: matches no member of the pipeline"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1"}, tc.args...)
			if tc.args[0] == "-n" {
				args = append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1"}, tc.args...)
			}
			r := dnecho(t, 30*time.Second, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.all())
			}
			mustContain(t, r, tc.want)
		})
	}
}

func TestFreonAbsurdResponseSizeIsCountedNotFatal(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	// 40 MiB uncapped is above the 32 MiB message limit: every call fails, each is counted.
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "3", "-t", "1", "-f",
		"--payload-resp", "40960", "--payload-resp-uncapped", "--no-retry")
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Failures: 3", "Failures by result:")
}

func TestFreonMalformedConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ozone-site.xml"), []byte("<configuration><property><name>x</name>\n<value>1</property>"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", "1")
	if r.code == 0 {
		t.Fatalf("exit 0 on a malformed config\n%s", r.all())
	}
	mustContain(t, r, "ozone-site.xml")
}

func TestFreonNoClusterGiven(t *testing.T) {
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--container-id", "1", "-n", "1")
	if r.code == 0 {
		t.Fatalf("exit 0 without a cluster\n%s", r.all())
	}
	mustContain(t, r, "no cluster given")
}

// SIGINT, SIGTERM and SIGHUP stop a run gracefully: the report of what ran, exit 130.
func TestFreonSignalStillPrintsReport(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r := startCmd(t, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "--duration", "60s", "-t", "2")
			r.waitForMatch(t, regexp.MustCompile(`\(([1-9][0-9]*) out of 60\)`)) // a progress line after a second of load
			r.signal(t, sig)
			res := r.wait(t)
			if res.code != exitcode.Interrupted || res.took > 5*time.Second {
				t.Fatalf("exit %d after %s, want %d within a second or so\n%s", res.code, res.took, exitcode.Interrupted, res.all())
			}
			all := res.all()
			if strings.Contains(all, " of 1000 calls") {
				t.Errorf("duration mode reports progress against the unused -n default:\n%s", all)
			}
			m := regexp.MustCompile(`Successful executions: (\d+)`).FindStringSubmatch(all)
			if m == nil {
				t.Fatalf("no report after %s:\n%s", sig, all)
			}
			if n, _ := strconv.Atoi(m[1]); n == 0 {
				t.Errorf("report counts no successful call after a second of load:\n%s", all)
			}
		})
	}
}

// Ctrl-C while SCM does not answer (it accepts connections, never replies): the lookup stops at
// once and the command says it was interrupted (130), not that SCM failed.
func TestFreonCtrlCDuringLookup(t *testing.T) {
	hung := testkit.NewSilent(t)
	r := startCmd(t, "freon", "dn-echo", "--scm", hung.Addr(), "--container-id", "1", "-n", "1")
	waitConnected(t, hung)
	r.signal(t, syscall.SIGINT)
	res := r.wait(t)
	if res.code != exitcode.Interrupted || res.took > 5*time.Second {
		t.Fatalf("exit %d after %s, want %d at once\n%s", res.code, res.took, exitcode.Interrupted, res.all())
	}
	if !strings.Contains(res.all(), "interrupted") || strings.Contains(res.all(), "no SCM answered") {
		t.Errorf("output should say the lookup was interrupted:\n%s", res.all())
	}
}

func TestFreonMissingContainerID(t *testing.T) {
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--scm", "127.0.0.1:1", "-n", "1")
	if r.code != exitcode.Usage {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
	}
	mustContain(t, r, "--container-id: is required")
}

func TestFreonConsoleReportLayout(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "100", "-t", "2", "--report", "console")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "-- Timers ----------------------------------------------------------------------\nrpc-payload\n             count = 100\n",
		"            99.9% <= ", "Successful executions: 100")
}
