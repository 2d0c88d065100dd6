package realha

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realkit"
	"github.com/dnecho/dnecho/testsupport/realozone"
)

// binPath is the dnecho binary TestMain builds.
var binPath string

// started says the HA cluster started (so TestMain records what ran).
var started bool

func TestMain(m *testing.M) {
	os.Exit(realkit.Main(m, &binPath, "e2e/realha", "3 SCMs (HA), OM, 3 DataNodes, RATIS/THREE, insecure",
		func(int) bool { return started }))
}

// lookupTimeout bounds the lookups of the hung-SCM cases: a failure then resumes the SCM well
// within the minute after which a paused SCM shuts itself down (docs/real-ozone-ha.md).
const lookupTimeout = 40 * time.Second

// An SCM HA service of three: dnecho and Java freon work against it; a follower listed first
// is logged as the redirect it is; with the first-listed SCM hung (a follower, then the
// leader), dnecho names it and finishes well inside the lookup timeout.
func TestRealSCMHA(t *testing.T) {
	realozone.Require(t)
	c := startHA(t)
	id := fmt.Sprint(realkit.Container(t, c))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	leader, followers, err := c.SCMRoles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leader %s, followers %s and %s", leader.ID, followers[0].ID, followers[1].ID)
	freon := []string{"freon", "dn-echo", "--container-id", id, "-n", "20", "-t", "2", "--lookup-timeout", lookupTimeout.String()}

	t.Run("service", func(t *testing.T) {
		r := dnecho(t, 2*time.Minute, append(freon, "--conf", c.ClientConf)...)
		if r.Code != 0 || !strings.Contains(r.Out, "Successful executions: 20") {
			t.Errorf("dnecho: exit %d\n%s", r.Code, realkit.Tail(r.Out, 20))
		}
		jr := realkit.JavaFreon(t, c, 3*time.Minute, "dn-echo", "--container-id", id, "-n", "20", "-t", "2")
		if jr.Code != 0 || !strings.Contains(jr.Out, "Successful executions: 20") {
			t.Errorf("java freon: exit %d\n%s", jr.Code, realkit.Tail(jr.Out, 20))
		}
	})

	f, other := followers[0], followers[1]
	followerFirst := clientConf(t, c, f, leader, other)
	t.Run("follower listed first", func(t *testing.T) {
		r := dnecho(t, 2*time.Minute, append(freon, "--conf", followerFirst)...)
		if r.Code != 0 {
			t.Fatalf("exit %d\n%s", r.Code, realkit.Tail(r.Out, 20))
		}
		redirect := fmt.Sprintf("INFO dnecho.freon: SCM %s (%s) is not the leader", f.ID, f.Client)
		at := strings.Index(r.Out, redirect)
		if at < 0 || strings.Contains(r.Out[at:], "still waiting for SCM") {
			t.Errorf("want %q and no 'still waiting for SCM' after it:\n%s", redirect, realkit.Tail(r.Out, 20))
		}
	})

	// The leader stays: the follower's 5 s of silence is the whole cost.
	t.Run("hung follower listed first", func(t *testing.T) {
		hungFirst(t, c, f, leader, lookupTimeout/4, append(freon, "--conf", followerFirst))
	})
	// Last, as the group elects a new leader and the old one comes back a follower. The cost is
	// the election's: one election timeout (5 s) or more after the pause.
	t.Run("hung leader listed first", func(t *testing.T) {
		hungFirst(t, c, leader, f, lookupTimeout*3/4, append(freon, "--conf", clientConf(t, c, leader, f, other)))
	})
}

// hungFirst pauses the first-listed SCM (SIGSTOP by PID; SIGCONT when the test ends) and runs
// dnecho: it must leave the hung SCM after its 5 s quiet time, say so in one line naming it,
// and succeed within limit, well inside the lookup timeout. next is the SCM it must try next.
func hungFirst(t *testing.T, c *realozone.Cluster, hung, next *realozone.SCMNode, limit time.Duration, args []string) {
	if err := c.PauseSCM(hung.ID); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.ResumeSCM(hung.ID); err != nil {
			t.Errorf("resume %s: %v", hung.ID, err)
		}
	}()
	r := dnecho(t, lookupTimeout+30*time.Second, args...)
	t.Logf("dnecho with %s hung: exit %d after %.2f s", hung.ID, r.Code, r.Took.Seconds())
	fmt.Fprintf(os.Stderr, "e2e/realha: dnecho with the first-listed SCM %s hung: exit %d after %.2f s\n", hung.ID, r.Code, r.Took.Seconds())
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, realkit.Tail(r.Out, 20))
	}
	for _, l := range strings.Split(r.Out, "\n") {
		if strings.Contains(l, "dnecho.freon: SCM ") {
			t.Log(l)
		}
	}
	line := fmt.Sprintf("WARN dnecho.freon: SCM %s (%s) did not answer in 5s: trying %s (%s)", hung.ID, hung.Client, next.ID, next.Client)
	at, target := strings.Index(r.Out, line), strings.Index(r.Out, "Target: container")
	if at < 0 || target < at {
		t.Errorf("want %q before the target line:\n%s", line, realkit.Tail(r.Out, 20))
	}
	if r.Took < 5*time.Second || r.Took > limit {
		t.Errorf("took %s: want at least the 5 s quiet time and at most %s (the lookup timeout is %s)", r.Took, limit, lookupTimeout)
	}
}

// startHA starts the HA cluster, stopped when the test ends.
func startHA(t *testing.T) *realozone.Cluster {
	dir, err := os.MkdirTemp("", "real-ozone-ha-")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := realozone.Start(context.Background(), realozone.Options{Dir: dir, SCMs: 3, StartTimeout: 6 * time.Minute, Progress: realkit.TestLog{T: t}})
	if err != nil {
		t.Fatal(err)
	}
	started = true
	fmt.Fprintf(os.Stderr, "real HA cluster: Apache Ozone %s with 3 SCMs ready in %.0f s\n", realozone.Version, time.Since(start).Seconds())
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			fmt.Fprintf(os.Stderr, "real HA cluster logs kept in %s/logs\n", dir)
		} else {
			os.RemoveAll(dir)
		}
	})
	return c
}

// clientConf writes a client conf listing the SCMs in this order.
func clientConf(t *testing.T, c *realozone.Cluster, order ...*realozone.SCMNode) string {
	t.Helper()
	var ids []string
	for _, s := range order {
		ids = append(ids, s.ID)
	}
	dir, err := c.WriteClientConf("client-"+strings.Join(ids, "-"), ids...)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// dnecho runs the dnecho binary.
func dnecho(t *testing.T, limit time.Duration, args ...string) realkit.Result {
	t.Helper()
	return realkit.Dnecho(t, binPath, limit, args...)
}
