package cli

import (
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// `dnecho cluster` writes its configuration, serves until Ctrl-C, then stops cleanly (exit 0).
func TestClusterCommandServesUntilCtrlC(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(dnechoBinary(t), "cluster", "--conf-dir", dir, "--scms", "3", "--tokens", "--leader", "2", "--leader-every", "200ms")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	info := waitClusterJSON(t, dir, &out)
	if len(info.SCM) != 3 || len(info.DataNodes) != 3 || !info.Tokens || info.Leader != 1 || info.DataNodes[0].RatisAddr == "" {
		t.Errorf("cluster.json %+v", info)
	}
	r := dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "3", "-n", "20", "-t", "2")
	if r.code != 0 {
		t.Fatalf("freon against `dnecho cluster`: exit %d\n%s", r.code, r.all())
	}
	// Ratis reads while the leadership moves every 200 ms: NotLeader and LeaderNotReady are retried.
	r = dnecho(t, 30*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "3", "--duration", "1s", "-t", "2", "--ratis", "--read-only")
	if r.code != 0 || !strings.Contains(r.all(), "Failures: 0") {
		t.Fatalf("freon --ratis --read-only against `dnecho cluster`: exit %d\n%s", r.code, r.all())
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("cluster exited with %v; output:\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cluster did not stop within 10s of Ctrl-C")
	}
	if !strings.Contains(out.String(), "mini cluster stopped") || !strings.Contains(out.String(), "leadership moved to DataNode 3") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestClusterCommandRejectsBadFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, args := range [][]string{
		{"cluster", "--error-rate", "2"},
		{"cluster", "--error-rate", "NaN"},
		{"cluster", "--datanodes", "-1"},
		{"cluster", "--scms", "3", "--scm-addr", "127.0.0.1:0"},
		{"cluster", "--scm-addr", busy.Addr().String()},
	} {
		r := dnecho(t, 20*time.Second, args...)
		if r.code == 0 {
			t.Errorf("%v: exit 0\n%s", args, r.all())
		}
		if strings.Contains(r.all(), "panic") || strings.Contains(r.all(), "goroutine ") {
			t.Errorf("%v: stack trace instead of an error:\n%s", args, r.all())
		}
		if !strings.Contains(r.stderr, "error:") {
			t.Errorf("%v: no error message:\n%s", args, r.all())
		}
	}
}

// Counts the emulator would silently replace by its defaults, and duplicate ids, are refused.
func TestClusterBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--datanodes", "0"}, "--datanodes 0: use 1 to 128"},
		{[]string{"--datanodes", "129"}, "--datanodes 129: use 1 to 128"},
		{[]string{"--scms", "0"}, "--scms 0: use 1 (no HA) to 9"},
		{[]string{"--containers", "1,1"}, "container id 1 is given twice"},
		{[]string{"--containers", "0"}, "container id 0: ids are positive"},
		{[]string{"--error-rate", "NaN"}, "--error-rate NaN"},
		{[]string{"--latency", "-1ms"}, "can't be negative"},
		{[]string{"--leader", "4"}, "--leader 4: use a DataNode from 1 to 3"},
		{[]string{"--handlers", "0"}, "--handlers 0: use 1 or more"},
		{[]string{"--replication-delay", "-1s"}, "can't be negative"},
		{[]string{"--scms", "3", "--hang-scm", "4"}, "--hang-scm 4: use an SCM from 1 to 3 (--scms), or 0 for none"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := dnecho(t, 30*time.Second, append([]string{"cluster", "--conf-dir", t.TempDir()}, tc.args...)...)
			if r.code != exitcode.Usage {
				t.Fatalf("exit %d, want %d\n%s", r.code, exitcode.Usage, r.all())
			}
			mustContain(t, r, tc.want)
		})
	}
}

// `dnecho cluster --hang-scm 1` shows a hung SCM as a real one looks: it takes the connection and
// never answers; freon leaves it for the next SCM, which leads now.
func TestClusterHangSCM(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(dnechoBinary(t), "cluster", "--conf-dir", dir, "--scms", "3", "--hang-scm", "1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	info := waitClusterJSON(t, dir, &out)
	r := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", "5", "-t", "1",
		"-D", "hdds.scmclient.rpc.timeout=1s", "-D", "hdds.scmclient.failover.retry.interval=400ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "SCM scm1 ("+info.SCM[0]+") did not answer in 1s: trying scm2 ("+info.SCM[1]+")", "Successful executions: 5")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	stopped = true
	if !strings.Contains(out.String(), "SCM 1 hangs") {
		t.Errorf("the banner does not say SCM 1 hangs:\n%s", out.String())
	}
}
