package datanode

import (
	"flag"
	"os"
	"os/exec"
	"testing"
)

// testTransport is the transport of every Client the package's tests make with newClient.
var testTransport = flag.String("transport", "", "transport of the package's tests: grpc (the default) or h2")

// TestSuiteOverH2 runs every other test of the package again, in a child process, with the h2
// transport: the same calls, the same expectations.
func TestSuiteOverH2(t *testing.T) {
	if *testTransport != "" {
		t.Skip("already the child run")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^Test[^S]|^TestS[^u]", "-test.count=1", "-transport=h2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the package's tests over h2 failed: %v\n%s", err, out)
	}
}
