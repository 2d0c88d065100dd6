package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// The smoke case of Ozone's robot test with --ratis and with --ratis --read-only: exit 0 and
// "Successful executions: 1". Write mode logs the Echo on every replica; read-only does not.
func TestFreonRatisSmoke(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	for _, mode := range [][]string{{"--ratis"}, {"--ratis", "--read-only"}} {
		t.Run(strings.Join(mode, " "), func(t *testing.T) {
			before := c.Group().Stats().LastIndex
			args := append([]string{"freon", "dn-echo", "--conf", conf, "-t=1", "-n=1", "--container-id=2", "--payload-req=1", "--payload-resp=1"}, mode...)
			r := dnecho(t, 30*time.Second, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			mustContain(t, r, "Successful executions: 1", "Failures: 0")
			if strings.Contains(r.all(), readOnlyForced) {
				t.Errorf("read-only forced with --ratis:\n%s", r.all())
			}
			logged := c.Group().Stats().LastIndex - before
			if want := map[bool]uint64{true: 0, false: 1}[len(mode) == 2]; logged != want {
				t.Errorf("%d log entries, want %d", logged, want)
			}
		})
	}
}

// freon's upstream test matrix (Ozone: hadoop-ozone/integration-test/.../freon/
// TestDNRPCLoadGenerator.java): every combination of --read-only and --ratis on a one-replica
// container with --clients 5 -t 10 exits 0.
func TestFreonRatisMatrixOneMember(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{DataNodes: 1})
	for _, mode := range [][]string{{}, {"--read-only"}, {"--ratis"}, {"--ratis", "--read-only"}} {
		t.Run(strings.Join(append([]string{"mode"}, mode...), " "), func(t *testing.T) {
			args := append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "--clients", "5", "-t", "10", "-n", "50"}, mode...)
			r := dnecho(t, 60*time.Second, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			mustContain(t, r, "Successful executions: 50")
		})
	}
}

// TestFreonRatisRefusesUnsafeWrite: a write to a container SCM lists CLOSED is refused before
// any call, with the reason and the override; reads and the override run.
func TestFreonRatisRefusesUnsafeWrite(t *testing.T) {
	c, conf := minitest.Start(t, minicluster.Options{})
	if err := c.SCM().AddContainer(scmsim.Container{ID: 4, State: hddspb.LifeCycleState_CLOSED, PipelineID: c.PipelineID()}); err != nil {
		t.Fatal(err)
	}
	base := []string{"freon", "dn-echo", "--conf", conf, "--container-id", "4", "-n", "1", "-t", "1", "--ratis"}
	r := dnecho(t, 30*time.Second, base...)
	if r.code != exitcode.Failure {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "refusing write-mode Echo through Ratis to container 4: SCM lists it as CLOSED, not OPEN", "--unsafe-write")
	if strings.Contains(r.all(), "Successful executions") || c.Group().Stats().LastIndex != 1 {
		t.Errorf("a refused run sent calls:\n%s", r.all())
	}
	// The DataNodes do not hold container 4: reads fail with CONTAINER_NOT_FOUND, and an unsafe
	// write is applied nowhere, failing the (emulated) pipeline as it would a real one.
	r = dnecho(t, 30*time.Second, append(base, "--read-only")...)
	mustContain(t, r, "CONTAINER_NOT_FOUND=1")
	r = dnecho(t, 30*time.Second, append(base, "--unsafe-write")...)
	mustContain(t, r, "StorageContainerException=1")
	testwait.Eventually(t, testwait.Timeout, "a failed replica", func() bool { return c.Group().Stats().Failed != "" })
}
