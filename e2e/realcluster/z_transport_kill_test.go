package realcluster

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// This runs after the outage tests (file order): it kills a DataNode, and starts it again.

// A DataNode killed in the middle of a run, with each transport: the calls in flight and those
// after fail over to the next member, and the run succeeds. The DataNode is started again
// before the next transport's run.
func TestTransportsDataNodeKilledOnRealOzone(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	for _, tr := range []string{"grpc", "h2"} {
		t.Run(tr, func(t *testing.T) {
			d := dataNodeAt(t, c, members(t, c.ClientConf, id)[0])
			load := exec.Command(binPath, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id), "-t", "4", "--duration", "12s", "--transport", tr)
			load.Env = append(os.Environ(), "OZONE_CONF_DIR=")
			done := make(chan result, 1)
			go func() { done <- run(t, load, 3*time.Minute) }()
			// Whenever the kill lands in the run, every call must succeed: the pause only
			// makes it land in the middle.
			time.Sleep(4 * time.Second)
			if err := c.Kill(d); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if err := c.Restart(d, false); err != nil {
				t.Fatal(err)
			}
			rep := parseReport(t, r)
			if r.Code != 0 || rep.Failures != 0 || rep.Successful == 0 {
				t.Fatalf("exit %d, %d successful, %d failures; want 0 and no failure:\n%s", r.Code, rep.Successful, rep.Failures, tail(r.Out, 15))
			}
			t.Logf("%s: %d calls, none failed", tr, rep.Successful)
		})
	}
}
