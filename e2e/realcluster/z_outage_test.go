package realcluster

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/realozone"
)

// These run last in the package (go test takes the files in name order, hence z_): an outage can
// leave SCM closing the pipeline, and a test after it could get a container on a pipeline that is
// about to close.
//
// DataNode outages on the real cluster, in an order that leaves the cluster usable for the next:
// a paused DataNode (SIGSTOP), a killed Ratis leader, and last a DataNode restarted on new ports
// (after which SCM lists ports nobody serves). Each has its emulator counterpart.
func TestDataNodeOutages(t *testing.T) {
	c := cluster(t)
	// Each on a new container: an outage may end with SCM closing the pipeline and its containers.
	t.Run("paused DataNode", func(t *testing.T) { pausedDataNode(t, c, container(t, c)) })
	t.Run("Ratis leader killed", func(t *testing.T) { leaderKilled(t, c, container(t, c)) })
	t.Run("DataNode restarted on new ports", func(t *testing.T) { restartedOnNewPorts(t, c, container(t, c)) })
}

var membersRE = regexp.MustCompile(`DataNode\(s\) \[([^\]]+)\]`)

// members returns the addresses of the container's pipeline as dnecho's target line lists them,
// the first being where `--target first` (Java's client) sends its calls.
func members(t *testing.T, conf string, id int64, mode ...string) []string {
	t.Helper()
	r := dnecho(t, time.Minute, append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", fmt.Sprint(id), "-n", "1", "-t", "1"}, mode...)...)
	m := membersRE.FindStringSubmatch(r.Out)
	if r.Code != 0 || m == nil {
		t.Fatalf("exit %d, no target line:\n%s", r.Code, tail(r.Out, 10))
	}
	return strings.Split(m[1], ", ")
}

// pausedChecks are what a paused first member does to both freon targets, on either peer.
func pausedChecks(t *testing.T, peer, conf string, id int64, paused string) {
	base := []string{"freon", "dn-echo", "--conf", conf, "--container-id", fmt.Sprint(id), "--deadline", "2s"}
	// --target all: a third of the calls go to the paused DataNode and end at the deadline.
	r := dnecho(t, 2*time.Minute, append(base, "--target", "all", "-n", "30", "-t", "3", "-f", "--no-reresolve")...)
	rep := parseReport(t, r)
	if r.Code != 255 || rep.Failures != 10 || rep.Successful != 20 || !strings.Contains(r.Out, "DEADLINE_EXCEEDED=10") || !strings.Contains(r.Out, paused) {
		t.Errorf("%s, --target all: exit %d, %d failures, %d successful; want 255, 10 DEADLINE_EXCEEDED naming %s, 20:\n%s", peer, r.Code, rep.Failures, rep.Successful, paused, tail(r.Out, 12))
	}
	// --target first: each call waits out the deadline on the paused member, then the next answers.
	r = dnecho(t, 2*time.Minute, append(base, "-n", "3", "-t", "1")...)
	rep = parseReport(t, r)
	if r.Code != 0 || rep.Successful != 3 || rep.Median < 2000 {
		t.Errorf("%s, --target first: exit %d, %d successful, median %.1f ms; want 0, 3 and at least the 2 s deadline:\n%s", peer, r.Code, rep.Successful, rep.Median, tail(r.Out, 12))
	}
}

func pausedDataNode(t *testing.T, c *realozone.Cluster, id int64) {
	first := members(t, c.ClientConf, id)[0]
	d := dataNodeAt(t, c, first)
	if err := c.Pause(d); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	defer func() {
		c.Resume(d)
		t.Logf("DataNode %s was paused for %s", first, time.Since(paused).Round(time.Second))
	}()
	pausedChecks(t, "real", c.ClientConf, id, first)
	// Java freon with the same 2 s read timeout fails over the same way.
	jr := javaFreon(t, c, 2*time.Minute, "--set", "ozone.client.read.timeout=2s", "dn-echo", "-n", "3", "-t", "1", "--container-id", fmt.Sprint(id))
	if rep := parseReport(t, jr); jr.Code != 0 || rep.Successful != 3 || rep.Median < 2000 {
		t.Errorf("java freon: exit %d, %d successful, median %.1f ms:\n%s", jr.Code, rep.Successful, rep.Median, tail(jr.Out, 12))
	}

	emu, conf := emulator(t, minicluster.Options{})
	emuFirst := members(t, conf, 1)[0]
	for _, dn := range emu.DataNodes() {
		if dn.Addr() == emuFirst {
			if err := dn.SetFaults(dnsim.Faults{Stall: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pausedChecks(t, "emulator", conf, 1, emuFirst)
}

// dataNodeAt returns the real DataNode serving gRPC at addr.
func dataNodeAt(t *testing.T, c *realozone.Cluster, addr string) *realozone.DataNode {
	t.Helper()
	for _, d := range c.DataNodes {
		if d.GRPC() == addr || d.Ratis() == addr {
			return d
		}
	}
	t.Fatalf("no DataNode at %s", addr)
	return nil
}

var leaderRE = regexp.MustCompile(`leader ([0-9a-f-]{36})`)

// Writes through Ratis go on when the leader is killed and comes back: the client follows the
// new leader; every call succeeds.
func leaderKilled(t *testing.T, c *realozone.Cluster, id int64) {
	r := dnecho(t, time.Minute, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id), "-n", "1", "-t", "1", "--ratis")
	m := leaderRE.FindStringSubmatch(r.Out)
	if m == nil {
		t.Fatalf("no leader in the target line:\n%s", tail(r.Out, 10))
	}
	var leader *realozone.DataNode
	for _, d := range c.DataNodes {
		if u, err := c.UUID(d); err == nil && u == m[1] {
			leader = d
		}
	}
	if leader == nil {
		t.Fatalf("leader %s is none of the DataNodes", m[1])
	}
	load := exec.Command(binPath, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id), "--ratis", "-t", "2", "--duration", "30s", "-f")
	done := make(chan result, 1)
	go func() { done <- run(t, load, 3*time.Minute) }()
	time.Sleep(5 * time.Second)
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	if err := c.Restart(leader, false); err != nil {
		t.Fatal(err)
	}
	res := <-done
	rep := parseReport(t, res)
	t.Logf("leader %s killed after 5 s, restarted 5 s later: %d calls, %d failures", m[1], rep.Successful, rep.Failures)
	switch {
	case rep.Successful == 0:
		t.Errorf("no write succeeded:\n%s", tail(res.Out, 15))
	case rep.Failures == 0 && res.Code == 0:
		// The usual outcome: the client followed the new leader and every write succeeded.
	default:
		// Sometimes the Raft group does not survive the loss on these two busy cores: a member
		// asks SCM to close the pipeline, SCM closes its containers, and every write from then
		// on is refused by the state machine. dnecho must then say exactly that, not time out
		// or hang, and SCM must indeed list the container as no longer OPEN.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		info, _ := c.Admin(ctx, "container", "info", fmt.Sprint(id))
		if res.Code != 255 || !strings.Contains(res.Out, fmt.Sprintf("Failures by result: ContainerNotOpenException=%d", rep.Failures)) ||
			strings.Contains(info, "Container State: OPEN") {
			t.Errorf("exit %d, %d failures: want every failure a ContainerNotOpenException of a container SCM closed:\n%s\n%s", res.Code, rep.Failures, tail(res.Out, 15), tail(info, 8))
		}
		t.Logf("the pipeline did not survive the leader's loss: SCM closed container %d", id)
	}
}

// A DataNode restarted on the same host with new ports: SCM keeps listing its old ports (a
// registered DataNode's details change only with its IP or host name), so calls to it keep
// failing with UNAVAILABLE at the old address while the other members answer. The emulator's
// RestartOnNewPorts does the same.
func restartedOnNewPorts(t *testing.T, c *realozone.Cluster, id int64) {
	second := members(t, c.ClientConf, id)[1]
	d := dataNodeAt(t, c, second)
	if err := c.Kill(d); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(d, true); err != nil {
		t.Fatal(err)
	}
	// Back on the ports SCM lists, so that the tests after this one find a working cluster.
	defer func() {
		if err := c.RestoreFirstPorts(d); err != nil {
			t.Errorf("restore %s: %v", second, err)
		}
	}()
	if d.GRPC() == second {
		t.Fatalf("restarted on the same port %s", second)
	}
	// Give the restarted DataNode time to register and heartbeat with its new ports.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	port := second[strings.LastIndex(second, ":")+1:]
	for {
		out, err := c.Admin(ctx, "datanode", "list", "--json")
		if err == nil && strings.Contains(out, `"HEALTHY"`) && !strings.Contains(out, `"STALE"`) {
			if !strings.Contains(out, port) {
				t.Fatalf("SCM no longer lists the old port %s", port)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("datanode list: %v\n%s", err, tail(out, 10))
		}
		time.Sleep(2 * time.Second)
	}
	check := func(peer, conf string, id int64, moved string) {
		r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", fmt.Sprint(id), "--target", "all", "-n", "30", "-t", "3", "-f", "--reresolve-after", "1s")
		rep := parseReport(t, r)
		if r.Code != 255 || rep.Failures != 10 || !strings.Contains(r.Out, "UNAVAILABLE=10") || !strings.Contains(r.Out, moved) {
			t.Errorf("%s: exit %d, %d failures; want 255 and 10 UNAVAILABLE at the old address %s:\n%s", peer, r.Code, rep.Failures, moved, tail(r.Out, 12))
		}
	}
	check("real", c.ClientConf, id, second)
	emu, conf := emulator(t, minicluster.Options{})
	emuSecond := members(t, conf, 1)[1]
	for i, dn := range emu.DataNodes() {
		if dn.Addr() == emuSecond {
			if err := emu.RestartOnNewPorts(i); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("emulator", conf, 1, emuSecond)
}
