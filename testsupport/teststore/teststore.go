// Package teststore starts the real stores the output tests write to (InfluxDB 1.x and
// Prometheus from Debian's packages) on 127.0.0.1 with free ports and their data in the test's
// temp dir, and finds headless Chromium. A missing package is installed when the test runs as
// root (CI on a fresh Debian); otherwise the test is skipped with the command that installs it, or
// fails under testdeps.RequireEnv=1.
package teststore

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testdeps"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// Debian packages of the binaries the tests run.
var packages = map[string]string{"influxd": "influxdb", "prometheus": "prometheus", "chromium": "chromium"}

var installMu sync.Mutex

// Binary returns the path of a server binary, installing its Debian package when running as
// root, or skips the test when it cannot (fails it under testdeps.RequireEnv=1) or under -short.
func Binary(t testing.TB, name string) string {
	t.Helper()
	testdeps.SkipShort(t, name)
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	pkg := packages[name]
	if os.Geteuid() != 0 {
		testdeps.Require(t, name, errors.New("missing and this is not root"), "install it with `apt-get install "+pkg+"` (or run ./scripts/test-deps.sh as root)")
	}
	installMu.Lock()
	defer installMu.Unlock()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	// Another test binary may hold the dpkg lock: wait for it rather than fail.
	cmd := exec.Command("apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq", "--no-install-recommends", pkg)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install %s: %v\n%s", pkg, err, out)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s installed but %s not found: %v", pkg, name, err)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// server is a started store process, stopped (and waited for) at the end of the test.
type server struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed when the process has exited
}

func start(t testing.TB, dir, bin string, args ...string) *server {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, filepath.Base(bin)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	s := &server{cmd: cmd, log: logf, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		logf.Close()
	})
	return s
}

// maxStarts is how many times startOnFreePorts starts a store whose port was taken.
const maxStarts = 3

// startOnFreePorts starts a store with launch, which picks free ports and returns the server
// and the URL that answers want once it is ready. A port free a moment before may be taken by
// the time the store binds it (another process's connection on a busy machine: Prometheus
// exited with "bind: address already in use"); the store is then started again on other
// ports.
func startOnFreePorts(t testing.TB, want int, launch func(dir string) (*server, string)) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, url := launch(t.TempDir())
		err := s.waitReady(url, want)
		if err == nil {
			return s
		}
		if attempt == maxStarts || !s.exited() || !strings.Contains(s.Logf(), "address already in use") {
			t.Fatalf("%s: %v\n%s", filepath.Base(s.cmd.Path), err, s.Logf())
		}
		t.Logf("%s: a port was taken before it bound it; starting it again on others", filepath.Base(s.cmd.Path))
	}
}

// exited says whether the process has ended.
func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitReady polls url until it answers with want, for at most a minute (Debian's InfluxDB and
// Prometheus start in a second or two; a loaded CI machine gets more), or until the process
// exits.
func (s *server) waitReady(url string, want int) error {
	var err error // the last probe's, for the failure message
	ready := func() bool {
		var resp *http.Response
		if resp, err = http.Get(url); err != nil {
			return s.exited()
		}
		resp.Body.Close()
		return resp.StatusCode == want
	}
	if werr := testwait.Until(time.Minute, fmt.Sprintf("%s answers %d", url, want), ready); werr != nil {
		return fmt.Errorf("%v (last error: %v)", werr, err)
	}
	if s.exited() {
		return fmt.Errorf("exited before %s answered %d (last error: %v)", url, want, err)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Logf reports a store's log file, for failure messages.
func (s *server) Logf() string {
	b, _ := os.ReadFile(s.log.Name())
	return tail(strings.TrimSpace(string(b)), 4000)
}
