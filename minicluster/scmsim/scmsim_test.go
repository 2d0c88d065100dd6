package scmsim

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Values of the illustrative cluster in docs/hadoop-rpc.md#server-frames.
const (
	vecPipeline = "5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b"
	vecDN       = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	vecTime     = 1700000000000

	// vecListHeader is the delimited header (callId 1, SUCCESS) of the ListPipelines reply in
	// docs/hadoop-rpc.md#server-frames, whose body is hadooprpcvectors.ListBody.
	vecListHeader = "1a0801100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf4000"
)

// specCluster is the docs/hadoop-rpc.md#server-frames cluster: container 1 on one pipeline with one
// DataNode.
func specCluster(t testing.TB, s interface {
	AddContainer(Container) error
	AddPipeline(*hddspb.Pipeline) error
}) {
	t.Helper()
	dn, err := Datanode(vecDN, "10.0.0.11", "dn1.example.com", DefaultStandalonePort)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Pipeline(vecPipeline, hddspb.PipelineState_PIPELINE_OPEN, dn)
	if err != nil {
		t.Fatal(err)
	}
	p.CreationTimeStamp = proto.Uint64(vecTime)
	if err := s.AddPipeline(p); err != nil {
		t.Fatal(err)
	}
	if err := s.AddContainer(Container{ID: 1, PipelineID: vecPipeline, Owner: "om1", StateEnterTime: time.UnixMilli(vecTime)}); err != nil {
		t.Fatal(err)
	}
}

func startSCM(t testing.TB, cfg Config) *SCM {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The emulator answers the client frames of docs/hadoop-rpc.md#client-frames with the server
// frames of docs/hadoop-rpc.md#server-frames.
func TestWireMatchesSpec(t *testing.T) {
	s := startSCM(t, Config{})
	specCluster(t, s)
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	rpcservertest.ExpectBytes(t, c, "GetContainer(1)", vec.Bytes(vec.GetContainerOK))

	c.Write(vec.Bytes(vec.ListPipelines))
	header, body := vec.Bytes(vecListHeader), vec.Bytes(vec.ListBody)
	frame := append([]byte{0, 0, 0, 0}, header...) // header hex starts with its length
	frame = append(protowire.AppendVarint(frame, uint64(len(body))), body...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	rpcservertest.ExpectBytes(t, c, "ListPipelines", frame)

	c.Write(vec.Bytes(vec.GetContainerToken))
	rpcservertest.ExpectBytes(t, c, "GetContainerToken (tokens off)", vec.Bytes(vec.EmptyTokenOK))
}

func TestStartOnlyLoopback(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "localhost:0", "nonsense"} {
		if err := s.Start(addr); err == nil {
			s.Close()
			t.Errorf("Start(%q) accepted", addr)
		}
	}
	if err := s.Restart(); err == nil {
		t.Error("Restart before Start accepted")
	}
}

func TestBuilders(t *testing.T) {
	if _, err := Datanode("not-a-uuid", "1.2.3.4", "h", 1); err == nil {
		t.Error("Datanode accepted a bad uuid")
	}
	if _, err := Pipeline("x", hddspb.PipelineState_PIPELINE_OPEN); err == nil {
		t.Error("Pipeline accepted a bad id")
	}
	if u := NewUUID(); len(u) != 36 || u[14] != '4' {
		t.Errorf("NewUUID() = %q", u)
	}
	if _, err := NewHA(0, Config{}); err == nil {
		t.Error("NewHA(0) accepted")
	}
	if _, err := New(Config{TokenExpiry: -time.Second}); err == nil {
		t.Error("negative TokenExpiry accepted")
	}
}
