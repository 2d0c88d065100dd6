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

// reportCounts are the lines of freon's report that count calls by outcome.
var reportCounts = regexp.MustCompile(`(?m)(Failures: \d+|Successful executions: \d+|Failures by result: .*)$`)

// counts is what a run's report counts, with its exit code.
func counts(r runResult) string {
	return strings.Join(append(reportCounts.FindAllString(r.all(), -1), "exit "+strconv.Itoa(r.code)), "; ")
}

// The freon command with --transport grpc and --transport h2, the same calls against the
// emulated cluster: the same counts, the same failures by result, the same exit code.
func TestFreonTransportsAgree(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	base := []string{"freon", "dn-echo", "--conf", conf, "--container-id", "1"}
	cases := []struct {
		name   string
		args   []string
		faults *dnsim.Faults // on every DataNode during the case
		want   string        // in both outputs
	}{
		{"new streams", []string{"-n", "300", "-t", "8"}, nil, "Successful executions: 300"},
		{"reused streams", []string{"-n", "300", "-t", "8", "--stream", "reuse"}, nil, "Successful executions: 300"},
		{"clients 3", []string{"-n", "300", "-t", "6", "--clients", "3"}, nil, "Successful executions: 300"},
		{"1 MiB replies", []string{"-n", "20", "-t", "4", "--payload-resp", "1024"}, nil, "Successful executions: 20"},
		{"3 MiB replies, uncapped", []string{"-n", "6", "-t", "2", "--payload-resp", "3072", "--payload-resp-uncapped"}, nil, "Successful executions: 6"},
		{"2 MiB requests", []string{"-n", "6", "-t", "2", "--payload-req", "2048"}, nil, "Successful executions: 6"},
		{"Ozone errors", []string{"-n", "20", "-t", "2", "-f", "--no-retry"}, &dnsim.Faults{ErrorRate: 1}, "CONTAINER_INTERNAL_ERROR=20"},
		{"deadlines", []string{"-n", "4", "-t", "2", "-f", "--no-retry", "--deadline", "100ms", "--sleep-time-ms", "400"}, nil, "DEADLINE_EXCEEDED=4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.faults != nil {
				for _, dn := range c.DataNodes() {
					if err := dn.SetFaults(*tc.faults); err != nil {
						t.Fatal(err)
					}
				}
				defer func() {
					for _, dn := range c.DataNodes() {
						_ = dn.SetFaults(dnsim.Faults{})
					}
				}()
			}
			var got [2]string
			for i, tr := range []string{"grpc", "h2"} {
				r := dnecho(t, 2*time.Minute, append(append(base, tc.args...), "--transport", tr)...)
				mustContain(t, r, tc.want)
				got[i] = counts(r)
			}
			if got[0] != got[1] {
				t.Fatalf("grpc: %s\nh2:   %s", got[0], got[1])
			}
		})
	}
}

// A DataNode killed in the middle of a run: calls fail over to the next member with either
// transport, and the run succeeds.
func TestFreonTransportsDataNodeKilledMidRun(t *testing.T) {
	for _, tr := range []string{"grpc", "h2"} {
		t.Run(tr, func(t *testing.T) {
			c, conf := minitest.Start(t, minicluster.Options{})
			first := c.DataNodes()[0]
			done := make(chan runResult, 1)
			go func() {
				done <- dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "3000", "-t", "4", "--transport", tr)
			}()
			if err := testwait.Until(time.Minute, "the first DataNode's first 300 calls", func() bool { return first.Stats().Calls >= 300 }); err != nil {
				t.Fatal(err)
			}
			first.Stop()
			r := <-done
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			mustContain(t, r, "Successful executions: 3000", "Failures: 0")
			if c.DataNodes()[1].Stats().Successes == 0 {
				t.Errorf("the second DataNode answered nothing: no call failed over")
			}
		})
	}
}

// --transport takes grpc or h2, and not with --ratis.
func TestFreonTransportBadInput(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--transport", "h3"}, `invalid argument "h3" for "--transport" flag: use grpc or h2`},
		{[]string{"--ratis", "--transport", "h2"}, `--transport "h2": does not apply to the Ratis transport`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := dnecho(t, 30*time.Second, append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1"}, tc.args...)...)
			if r.code != exitcode.Usage {
				t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
			}
			mustContain(t, r, tc.want)
		})
	}
}
