package teststore

import (
	"fmt"
	"net/http"
	"os/exec"
	"testing"

	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// TestStartOnFreePortsRetries: a store that exits because its port was taken meanwhile is
// started again on another port; the first launch here stands for Prometheus's failed bind.
func TestStartOnFreePortsRetries(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		testdeps.RequireTool(t, "python3", "install python3")
	}
	launches := 0
	s := startOnFreePorts(t, http.StatusOK, func(dir string) (*server, string) {
		launches++
		port := FreePort(t)
		url := fmt.Sprintf("http://127.0.0.1:%d/", port)
		if launches == 1 {
			return start(t, dir, "/bin/sh", "-c", "echo 'listen tcp 127.0.0.1: bind: address already in use'; exit 1"), url
		}
		return start(t, dir, py, "-m", "http.server", fmt.Sprint(port), "--bind", "127.0.0.1", "--directory", dir), url
	})
	if launches != 2 || s.exited() {
		t.Errorf("%d launches, exited %v; want the second one running", launches, s.exited())
	}
}
