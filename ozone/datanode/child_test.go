package datanode

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// serveEnv makes the test binary serve one emulated DataNode instead of running tests.
const serveEnv = "DNECHO_TEST_SERVE_DATANODE"

// serveDataNode serves an emulated DataNode holding container 1, prints its details' wire form
// in hex on stdout and serves until stdin closes.
func serveDataNode() {
	d, err := dnsim.New(dnsim.Options{Containers: map[int64]int32{1: 0}})
	if err == nil {
		err = d.Start("127.0.0.1:0")
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	b, _ := marshalDetails(d.Details())
	fmt.Printf("%x\n", b)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	d.Stop()
}

// childDataNode starts an emulated DataNode in a child process, so that what a test measures
// of this process (allocations, CPU) is the client's alone.
func childDataNode(t testing.TB) *hddspb.Pipeline {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child DataNode: %v", err)
	}
	var b []byte
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%x", &b); err != nil {
		t.Fatalf("child DataNode said %q", line)
	}
	details, err := unmarshalDetails(b)
	if err != nil {
		t.Fatal(err)
	}
	return &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{details}}
}

func marshalDetails(d *hddspb.DatanodeDetailsProto) ([]byte, error) { return proto.Marshal(d) }

func unmarshalDetails(b []byte) (*hddspb.DatanodeDetailsProto, error) {
	d := new(hddspb.DatanodeDetailsProto)
	return d, proto.Unmarshal(b, d)
}
