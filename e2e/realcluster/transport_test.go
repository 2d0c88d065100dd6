package realcluster

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The same freon runs through grpc-go and through the h2 transport against real DataNodes
// (grpc-java's server): the same counts, failures by result and exit codes, and with a 20 ms
// DataNode sleep medians within a factor 1.5 of each other.
func TestTransportsAgreeOnRealOzone(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	cases := []struct {
		name string
		args []string
		want string // in both outputs
	}{
		{"new streams", []string{"-n", "400", "-t", "4"}, "Successful executions: 400"},
		{"reused streams", []string{"-n", "400", "-t", "4", "--stream", "reuse"}, "Successful executions: 400"},
		{"clients 4", []string{"-n", "400", "-t", "8", "--clients", "4"}, "Successful executions: 400"},
		{"1 KiB both ways", []string{"-n", "100", "-t", "2", "--payload-req", "1", "--payload-resp", "1"}, "Successful executions: 100"},
		{"1 MiB replies", []string{"-n", "20", "-t", "2", "--payload-resp", "1024"}, "Successful executions: 20"},
		{"replies at the 2 MiB cap", []string{"-n", "20", "-t", "2", "--payload-resp", "2048"}, "Successful executions: 20"},
		{"3 MiB replies, uncapped", []string{"-n", "5", "-t", "1", "--payload-resp", "3072", "--payload-resp-uncapped"}, "Successful executions: 5"},
		{"2 MiB requests", []string{"-n", "20", "-t", "2", "--payload-req", "2048"}, "Successful executions: 20"},
		{"deadlines", []string{"-n", "4", "-t", "2", "-f", "--no-retry", "--deadline", "100ms", "--sleep-time-ms", "400"}, "DEADLINE_EXCEEDED=4"},
		{"20 ms DataNode", []string{"-n", "60", "-t", "2", "--sleep-time-ms", "20"}, "Successful executions: 60"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			var medians [2]float64
			for i, tr := range []string{"grpc", "h2"} {
				args := append([]string{"freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id), "--transport", tr}, tc.args...)
				r := dnecho(t, 3*time.Minute, args...)
				rep := parseReport(t, r)
				if !strings.Contains(r.Out, tc.want) {
					t.Fatalf("%s: output lacks %q:\n%s", tr, tc.want, tail(r.Out, 20))
				}
				got[i] = fmt.Sprintf("exit %d, %d successful, %d failures, timer count %v%s", r.Code, rep.Successful, rep.Failures, rep.Count, byResult(r.Out))
				medians[i] = rep.Median
			}
			if got[0] != got[1] {
				t.Fatalf("grpc: %s\nh2:   %s", got[0], got[1])
			}
			if strings.HasPrefix(tc.name, "20 ms") && (medians[1] > 1.5*medians[0] || medians[0] > 1.5*medians[1]) {
				t.Errorf("median grpc %.2f ms, h2 %.2f ms: not within a factor 1.5", medians[0], medians[1])
			}
		})
	}
}

// byResult is the report's "Failures by result" line, if any.
func byResult(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "Failures by result: "); i >= 0 {
			return "; " + l[i:]
		}
	}
	return ""
}
