package realcluster

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realozone"
)

// A real DataNode made slow by pausing it (SIGSTOP) for stallOn out of every 3×stallOn: calls that
// reach it while it is stopped wait for it to run again, so well over 1% of its calls take as long
// as a pause and its p99 is many times the others'. The pause is sized from the others' own tail
// (stallFor): at least minStall (a real DataNode on loopback answers in a few milliseconds on a
// quiet machine), and three times the slowest p99 of an unpaused run, since on a loaded machine
// every DataNode's tail reaches tens of milliseconds and a fixed pause would hide in it. The
// pauses are far shorter than any timeout of SCM or the client, so nothing fails.
const (
	minStall = 50 * time.Millisecond
	maxStall = 2 * time.Second
	// stallsPerTrial pauses make the paused DataNode's share of slow calls stand out from the
	// others' by well over the verdict's three standard errors.
	stallsPerTrial = 25
)

// trialsEnv sets how many runs TestSlowRealDataNodeIsNamed makes against the one cluster (1 by
// default): scripts/verdict-trials.sh asks for more to count how often the verdict names the
// paused DataNode (docs/slow-datanode.md).
const trialsEnv = "DNECHO_SLOW_TRIALS"

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
	trials := 1
	if v := os.Getenv(trialsEnv); v != "" {
		if trials, err = strconv.Atoi(v); err != nil || trials < 1 {
			t.Fatalf("%s=%q: want a count of 1 or more", trialsEnv, v)
		}
	}
	stallOn := stallFor(t, c, id)
	named := 0
	for i := range trials {
		if slowTrial(t, c, slowed, id, uuid, addrs[1], stallOn) {
			named++
		}
		t.Logf("trial %d of %d: named in %d", i+1, trials, named)
	}
	t.Logf("verdict-trials: slow-real runs=%d named_dn2=%d", trials, named)
}

// slowTrial runs freon --target all while slowed is paused now and then; it reports whether the
// verdict named it, and only it (a miss is an error of t).
func slowTrial(t *testing.T, c *realozone.Cluster, slowed *realozone.DataNode, id int64, uuid, addr string, stallOn time.Duration) bool {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan int)
	go func() { done <- stallRepeatedly(c, slowed, stallOn, stop) }()
	d := max(6*time.Second, stallsPerTrial*3*stallOn)
	r := dnecho(t, d+2*time.Minute, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id),
		"--target", "all", "-t", "3", "--duration", fmt.Sprintf("%ds", int((d+time.Second-1)/time.Second)), "--report", "console")
	close(stop)
	stalls := <-done
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s", r.Code, tail(r.Out, 30))
	}
	t.Logf("%d pauses; the block and the verdict:\n%s", stalls, blockAndVerdict(r.Out))
	line := regexp.MustCompile(`(?m)^SLOW DATANODE ` + regexp.QuoteMeta(uuid[:4]+"… ("+addr+")") +
		`: p(50|99) [0-9.]+ ms vs [0-9.]+ ms for the other 2 \(`)
	if !line.MatchString(r.Out) || strings.Count(r.Out, "SLOW DATANODE ") != 1 {
		t.Errorf("after %d pauses of %s, want one SLOW DATANODE line naming %s (%s):\n%s", stalls, stallOn, uuid, addr, tail(r.Out, 20))
		return false
	}
	// A paused process is not a slow network: the cause line must not blame it.
	if v := verdictLines(r.Out); strings.Contains(v, "network RTT is what is high") {
		t.Errorf("a paused DataNode's network blamed:\n%s", v)
	}
	return true
}

// blockAndVerdict is the report from its per-DataNode block on.
func blockAndVerdict(out string) string {
	if i := strings.Index(out, "Per DataNode ("); i >= 0 {
		return out[i:]
	}
	return tail(out, 10)
}

// stallRepeatedly pauses d for stallOn every 3×stallOn until stop is closed, and leaves it
// running; it returns how many pauses it made.
func stallRepeatedly(c *realozone.Cluster, d *realozone.DataNode, stallOn time.Duration, stop <-chan struct{}) int {
	n := 0
	defer c.Resume(d)
	for {
		select {
		case <-stop:
			return n
		case <-time.After(2 * stallOn):
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

// stallFor is the pause for this machine: three times the slowest per-DataNode p99 of a short
// unpaused run, within [minStall, maxStall].
func stallFor(t *testing.T, c *realozone.Cluster, id int64) time.Duration {
	t.Helper()
	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", c.ClientConf, "--container-id", fmt.Sprint(id),
		"--target", "all", "-t", "3", "--duration", "4s", "--report", "console")
	if r.Code != 0 {
		t.Fatalf("unpaused run: exit %d:\n%s", r.Code, tail(r.Out, 30))
	}
	p99s := blockColumn(r.Out, 5)
	if len(p99s) != 3 {
		t.Fatalf("unpaused run: want the p99 of 3 DataNodes in the block, got %v:\n%s", p99s, blockAndVerdict(r.Out))
	}
	slowest := slices.Max(p99s)
	stall := min(maxStall, max(minStall, time.Duration(3*slowest*float64(time.Millisecond)).Round(10*time.Millisecond)))
	t.Logf("unpaused p99s %v ms: pauses of %s", p99s, stall)
	return stall
}

// blockColumn returns column i (0-based) of each row of the per-DataNode block, as numbers.
func blockColumn(out string, i int) []float64 {
	var vs []float64
	lines := strings.Split(blockAndVerdict(out), "\n")
	for _, l := range lines[min(2, len(lines)):] {
		f := strings.Fields(l)
		if len(f) <= i {
			break
		}
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			break
		}
		vs = append(vs, v)
	}
	return vs
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
