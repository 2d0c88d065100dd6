package realcluster

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Every mode of `dnecho freon dn-echo` against real DataNodes, with exact counts.
func TestFreonModesAgainstRealOzone(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	cases := []struct {
		name string
		args []string
		n    int
	}{
		{"grpc new stream", []string{"-t", "4"}, 400},
		{"grpc reused stream", []string{"-t", "4", "--stream", "reuse"}, 400},
		{"target all", []string{"-t", "6", "--target", "all"}, 300},
		{"clients 4", []string{"-t", "8", "--clients", "4"}, 400},
		{"ratis read-only", []string{"-t", "4", "--ratis", "--read-only"}, 300},
		{"ratis write", []string{"-t", "4", "--ratis"}, 100},
		{"payload 1 KiB both ways", []string{"-t", "2", "--payload-req", "1", "--payload-resp", "1"}, 100},
		{"response at the 2 MiB cap", []string{"-t", "2", "--payload-resp", "2048"}, 20},
		{"request of 2 MiB", []string{"-t", "2", "--payload-req", "2048"}, 20},
		{"response above the cap, uncapped", []string{"-t", "1", "--payload-resp", "3072", "--payload-resp-uncapped"}, 5},
		{"ratis write with 64 KiB", []string{"-t", "2", "--ratis", "--payload-req", "64", "--payload-resp", "64"}, 40},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id), "-n", fmt.Sprint(tc.n)}, tc.args...)
			r := dnecho(t, 3*time.Minute, args...)
			rep := parseReport(t, r)
			if r.Code != 0 || rep.Successful != tc.n || rep.Failures != 0 || int(rep.Count) != tc.n {
				t.Fatalf("exit %d, %d successful, %d failures, timer count %v; want 0, %d, 0, %d\n%s", r.Code, rep.Successful, rep.Failures, rep.Count, tc.n, tc.n, tail(r.Out, 20))
			}
			if !strings.Contains(r.Out, "3 DataNode(s)") {
				t.Errorf("the target line does not name the pipeline's 3 DataNodes:\n%s", tail(r.Out, 20))
			}
		})
	}
}

// Ozone's own smoke test, echoRPCLoad.robot: four DataNode cases of `freon dne -t=1 -n=1`, each
// passing with "Successful executions: 1" and exit 0, run by Java freon and by dnecho.
func TestRobotSmokeCasesBothFreons(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	cases := [][]string{
		{"--payload-req=1", "--payload-resp=1"},
		{"--payload-req=1"},
		{"--payload-resp=1"},
		{"--sleep-time-ms=0", "--clients=1"},
	}
	for i, extra := range cases {
		args := append([]string{"dne", "-t=1", "-n=1", fmt.Sprintf("--container-id=%d", id)}, extra...)
		t.Run(fmt.Sprintf("case %d %s", i+1, strings.Join(extra, " ")), func(t *testing.T) {
			for name, r := range map[string]result{
				"java freon": javaFreon(t, c, 2*time.Minute, args...),
				"dnecho":     dnecho(t, time.Minute, append([]string{"freon", "--conf", c.ClientConf}, args...)...),
			} {
				if r.Code != 0 || !strings.Contains(r.Out, "Successful executions: 1") {
					t.Errorf("%s: exit %d, want 0 and \"Successful executions: 1\":\n%s", name, r.Code, tail(r.Out, 15))
				}
			}
		})
	}
}

// Java freon and dnecho, same container, same -n -t and payloads, one after the other: both
// succeed with their own counts, and both time the same interval, from the call to the
// DataNode's response (docs/real-ozone.md). The DataNode sleeps 20 ms in each Echo, so each
// median must hold that sleep (an interval that left out the DataNode's time would not), and
// dnecho's must not exceed Java's by more than half (an interval that held more than the call).
// Java's may exceed dnecho's by any amount: its own client cost is part of its interval (0.5 to
// 2 ms a call on these two cores at low load, against 0.15 to 0.6 ms for dnecho), and on a busy
// machine a starved JVM adds tens of milliseconds (53 ms against dnecho's 26 ms with stress-ng
// beside the suite; docs/real-ozone.md, "Java freon side by side").
func TestJavaFreonAndDnechoAgree(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	const n = 300
	args := []string{"dn-echo", "-t", "1", "-n", fmt.Sprint(n), "--container-id", fmt.Sprint(id), "--payload-req", "0", "--payload-resp", "1", "--sleep-time-ms", "20"}
	jr := javaFreon(t, c, 5*time.Minute, args...)
	dr := dnecho(t, 5*time.Minute, append([]string{"freon", "--conf", c.ClientConf}, args...)...)
	java, ours := parseReport(t, jr), parseReport(t, dr)
	for name, p := range map[string]struct {
		r   result
		rep report
	}{"java freon": {jr, java}, "dnecho": {dr, ours}} {
		if p.r.Code != 0 || p.rep.Successful != n || p.rep.Failures != 0 || int(p.rep.Count) != n {
			t.Fatalf("%s: exit %d, %d successful, %d failures, count %v; want 0, %d, 0, %d\n%s", name, p.r.Code, p.rep.Successful, p.rep.Failures, p.rep.Count, n, n, tail(p.r.Out, 15))
		}
	}
	ratio := ours.Median / java.Median
	t.Logf("median: java freon %.3f ms, dnecho %.3f ms (ratio %.2f)", java.Median, ours.Median, ratio)
	const sleepMs = 20
	if java.Median < sleepMs || ours.Median < sleepMs {
		t.Errorf("a median under the DataNode's %d ms sleep: java freon %.3f ms, dnecho %.3f ms", sleepMs, java.Median, ours.Median)
	}
	if ratio > 1.5 {
		t.Errorf("dnecho's median is more than 1.5x Java's: java freon %.3f ms, dnecho %.3f ms", java.Median, ours.Median)
	}
}
