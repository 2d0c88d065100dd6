package cli

import (
	"net"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// A bad --rate is one line naming the option and its forms, exit 2, before any connection.
func TestFreonRateValidation(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	for _, rate := range []string{"0", "-1", "abc", "5/h", "1.5/s"} {
		t.Run(rate, func(t *testing.T) {
			r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--scm", ln.Addr().String(), "--container-id", "1", "--rate="+rate)
			if r.code != exitcode.Usage {
				t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
			}
			want := `error: invalid --rate "` + rate + `": want N or N/s (calls started per second) or N/m (per minute), N a whole number ≥ 1` + "\n"
			if r.stderr != want || r.stdout != "" {
				t.Errorf("stderr %q, want the one line %q (stdout %q)", r.stderr, want, r.stdout)
			}
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("SCM was dialled %d times before the bad --rate was refused", n)
	}
}

// --rate runs the open loop: paced (200 calls at 400/s take at least the 497.5 ms until the last
// is due), with the "Loop:" line in both reports; the closed loop says so too and its console
// report stays Java's.
func TestFreonRateOpenLoop(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	base := []string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-t", "4"}
	r := dnecho(t, 60*time.Second, append(base, "-n", "200", "--rate", "400")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 200", "count=200,",
		"[shutdown-hook-0] INFO dnecho.freon: Loop: open, 400/s, up to 4 threads; ")
	if r.took < 497*time.Millisecond {
		t.Errorf("200 calls at 400/s took %v", r.took)
	}

	r = dnecho(t, 60*time.Second, append(base, "--duration", "1s", "--rate", "10/s", "--report", "console")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "Successful executions: 10", "             count = 10\n")
	if !regexp.MustCompile(`\nLoop: open, 10/s, up to 4 threads; \d+ late starts? \(more than 1ms after their due time\), p99 start delay \d+\.\d ms\n\d+/\d+/\d+, `).MatchString(r.stdout) {
		t.Errorf("the console report does not start with the Loop: line:\n%s", r.stdout)
	}

	r = dnecho(t, 60*time.Second, append(base, "-n", "20", "--report", "console")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "INFO dnecho.freon: Loop: closed (4 threads)\n")
	if strings.Contains(r.stdout, "Loop") {
		t.Errorf("the closed loop's console report is not Java's:\n%s", r.stdout)
	}
}

// Ctrl-C in the open loop, while workers wait for their due times: the report of what ran, 130.
func TestFreonRateCtrlC(t *testing.T) {
	_, conf := minitest.Start(t, minicluster.Options{})
	r := startCmd(t, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "--duration", "60s", "--rate", "50", "-t", "2")
	r.waitForMatch(t, regexp.MustCompile(`\(([1-9][0-9]*) out of 60\)`))
	r.signal(t, syscall.SIGINT)
	res := r.wait(t)
	if res.code != exitcode.Interrupted || res.took > 5*time.Second {
		t.Fatalf("exit %d after %s, want %d at once\n%s", res.code, res.took, exitcode.Interrupted, res.all())
	}
	mustContain(t, res, "Loop: open, 50/s, up to 2 threads; ", "Successful executions: ")
	if strings.Contains(res.all(), "never started") {
		t.Errorf("calls cut short by Ctrl-C are counted as never started:\n%s", res.all())
	}
}
