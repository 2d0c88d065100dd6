package cli

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// `make demo` (scripts/demo.sh) starts a mini cluster, runs the freon drop-in and the quickstart
// against it, stops it and ends with commands to try next: every step works, the cluster is gone
// afterwards, and the suggested freon commands run as printed against a mini cluster.
func TestDemoScript(t *testing.T) {
	t.Parallel()
	// dnechoBehind runs the script with the binary as its argument.
	r := dnechoBehind(t, []string{"bash", "../../scripts/demo.sh"}, 3*time.Minute, []string{"DEMO_DURATION=2s"}, "")
	if r.code != 0 {
		t.Fatalf("demo exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "$ dnecho freon dn-echo --conf /tmp/mini --container-id 1", "Successful executions: 20000", "Failures: 0",
		"$ dnecho run --conf /tmp/mini -e DURATION=2s examples/quickstart.js", "dnecho_reqs", "Next, on your own cluster")
	if i, j := strings.Index(r.all(), "$ dnecho freon"), strings.Index(r.all(), "$ dnecho run"); i < 0 || j < i {
		t.Errorf("the freon drop-in is not the demo's first load")
	}
	scm := regexp.MustCompile(`SCM:\s+(127\.0\.0\.1:\d+)`).FindStringSubmatch(r.stdout)
	if scm == nil {
		t.Fatalf("the demo does not show its cluster's SCM\n%s", r.stdout)
	}
	if c, err := net.DialTimeout("tcp", scm[1], time.Second); err == nil {
		c.Close()
		t.Errorf("the demo's SCM at %s still answers: the cluster was not stopped", scm[1])
	}

	_, conf := minitest.Start(t, minicluster.Options{})
	next := strings.SplitAfter(r.stdout, "Next, on your own cluster")[1]
	var ran int
	for _, line := range strings.Split(next, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "dnecho freon ") {
			continue
		}
		args := strings.Fields(strings.NewReplacer("/etc/ozone/conf", conf, "/tmp/mini", conf, "-n 100000", "-n 500").Replace(line))[1:]
		res := dnecho(t, time.Minute, args...)
		if res.code != 0 || !strings.Contains(res.all(), "Successful executions: 500") {
			t.Errorf("%s: exit %d\n%s", line, res.code, res.all())
		}
		ran++
	}
	if ran != 2 {
		t.Errorf("%d freon commands suggested, want 2:\n%s", ran, next)
	}
}
