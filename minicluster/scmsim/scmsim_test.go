package scmsim

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Values of the illustrative cluster in docs/hadoop-rpc.md#server-frames.
const (
	vecPipeline = "5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b"
	vecDN       = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	vecTime     = 1700000000000

	// docs/hadoop-rpc.md#client-frames (client id a0..af, user hadoop).
	vecSession           = "68727063090000" + "0000006c1a0802100018052210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf28015012080a066861646f6f701a446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c"
	vecGetContainer      = "000000801a0802100018002210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010c0802120018033a0408011200"
	vecListPipelines     = "0000007e1a0802100018022210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010a08091200180372020a00"
	vecGetContainerToken = "000000811a0802100018042210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010d081b120018038202040a020801"

	// docs/hadoop-rpc.md#server-frames and the ListPipelines body.
	vecGetContainerOK = "000000801a0800100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400064080228013a5e0a5c080110011a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a01200028003080d095ffbc313a036f6d314000480050015801"
	vecEmptyTokenOK   = "0000002d1a0802100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400011081b280182020a0a080a0012001a002200"
	vecListHeader     = "1a0801100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf4000" // delimited header: callId 1, SUCCESS
	vecListBody       = "080928017295020a92020abe010a2433663235303465302d346638392d343164332d396130632d303330356538326333333031120931302e302e302e31311a0f646e312e6578616d706c652e636f6d220f0a0a5354414e44414c4f4e4510834d322433663235303465302d346638392d343164332d396130632d3033303565383263333330313a0d2f64656661756c742d7261636b40014800a2061508d383a5fc849cc1923f1081e6b0c1dee080869a01b206170a1508d383a5fc849cc1923f1081e6b0c1dee080869a011002180120012a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a0132004080d095ffbc315000"
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

func expect(t testing.TB, c net.Conn, what string, want []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("%s: %v (got %x)", what, err, got)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %x\nwant %x", what, got, want)
	}
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
	c.Write(unhex(t, vecSession+vecGetContainer))
	expect(t, c, "GetContainer(1)", unhex(t, vecGetContainerOK))

	c.Write(unhex(t, vecListPipelines))
	header, body := unhex(t, vecListHeader), unhex(t, vecListBody)
	frame := append([]byte{0, 0, 0, 0}, header...) // header hex starts with its length
	frame = append(protowire.AppendVarint(frame, uint64(len(body))), body...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	expect(t, c, "ListPipelines", frame)

	c.Write(unhex(t, vecGetContainerToken))
	expect(t, c, "GetContainerToken (tokens off)", unhex(t, vecEmptyTokenOK))
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
