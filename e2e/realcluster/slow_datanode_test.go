package realcluster

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/realozone"
)

// A real DataNode made slow by pausing it (SIGSTOP) for stallOn out of every stallOn+stallOff:
// calls that reach it while it is stopped wait for it to run again, so well over 1% of its calls
// take tens of milliseconds and its p99 is many times the others' (a real DataNode on loopback
// answers in a few milliseconds even on a loaded machine). The pauses are far shorter than any
// timeout of SCM or the client, so nothing fails.
const (
	stallOn  = 50 * time.Millisecond
	stallOff = 100 * time.Millisecond
)

// freon --target all names the paused DataNode, and only it, in the slow-DataNode verdict.
func TestSlowRealDataNodeIsNamed(t *testing.T) {
	c := cluster(t)
	id := container(t, c)
	addrs := members(t, c.ClientConf, id, "--target", "all")
	slowed := dataNodeAt(t, c, addrs[1])
	uuid, err := c.UUID(slowed)
	if err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	done := make(chan int)
	go func() { done <- stallRepeatedly(c, slowed, stop) }()
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id),
		"--target", "all", "-t", "3", "--duration", "6s", "--report", "console")
	close(stop)
	stalls := <-done
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, tail(r.Out, 30))
	}
	line := regexp.MustCompile(`(?m)^SLOW DATANODE ` + regexp.QuoteMeta(uuid[:4]+"… ("+addrs[1]+")") +
		`: p99 [0-9.]+ ms vs [0-9.]+ ms for the other 2$`)
	if !line.MatchString(r.Out) || strings.Count(r.Out, "SLOW DATANODE ") != 1 {
		t.Errorf("after %d pauses of %s, want one SLOW DATANODE line naming %s (%s):\n%s", stalls, stallOn, uuid, addrs[1], tail(r.Out, 20))
	}
	// A paused process is not a slow network: the cause line must not blame it.
	if v := verdictLines(r.Out); strings.Contains(v, "network RTT is what is high") {
		t.Errorf("a paused DataNode's network blamed:\n%s", v)
	}
	t.Logf("%d pauses; the verdict:\n%s", stalls, verdictLines(r.Out))
}

// stallRepeatedly pauses d for stallOn every stallOn+stallOff until stop is closed, and leaves it
// running; it returns how many pauses it made.
func stallRepeatedly(c *realozone.Cluster, d *realozone.DataNode, stop <-chan struct{}) int {
	n := 0
	defer c.Resume(d)
	for {
		select {
		case <-stop:
			return n
		case <-time.After(stallOff):
		}
		if c.Pause(d) != nil {
			return n
		}
		n++
		time.Sleep(stallOn)
		if c.Resume(d) != nil {
			return n
		}
	}
}

// verdictLines returns the report's SLOW DATANODE lines and the cause under each.
func verdictLines(out string) string {
	lines := strings.Split(out, "\n")
	var keep []string
	for i, l := range lines {
		if strings.HasPrefix(l, "SLOW DATANODE ") {
			keep = append(keep, l)
			if i+1 < len(lines) {
				keep = append(keep, lines[i+1])
			}
		}
	}
	return strings.Join(keep, "\n")
}
