package floor

import (
	"encoding/hex"
	"testing"

	"google.golang.org/grpc/mem"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Vectors of proto/dnpb/vectors_test.go: what Ozone's Java code puts on the wire.
const (
	vectorUUID      = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	vectorRequest   = "081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001"
	vectorSuccess   = "081612001801ba01020a00"
	vectorSuccess4B = "081612001801ba01060a0401020304"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewRequestIsWhatJavaSends(t *testing.T) {
	r, err := NewRequest(1, vectorUUID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(r.Bytes()); got != vectorRequest {
		t.Errorf("request\n got %s\nwant %s", got, vectorRequest)
	}
}

// The codec must add no allocation to a call: grpc-go's own are all that remain.
func TestCodecDoesNotAllocate(t *testing.T) {
	req, err := NewRequest(1, vectorUUID, 0)
	if err != nil {
		t.Fatal(err)
	}
	one := mem.BufferSlice{mem.SliceBuffer(unhex(t, vectorSuccess))}
	raw := unhex(t, vectorSuccess4B)
	split := mem.BufferSlice{mem.SliceBuffer(raw[:5]), mem.SliceBuffer(raw[5:])}
	var reply Reply
	var c Codec
	for name, op := range map[string]func(){
		"marshal":             func() { _, _ = c.Marshal(req) },
		"unmarshal one piece": func() { _ = c.Unmarshal(one, &reply) },
		"unmarshal split":     func() { _ = c.Unmarshal(split, &reply) },
	} {
		if n := testing.AllocsPerRun(100, op); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
	if err := c.Unmarshal(split, &reply); err != nil || reply.Result != dnpb.Result_SUCCESS || reply.Size != len(raw) {
		t.Errorf("split reply: %+v, %v", reply, err)
	}
}

func TestCodecRejectsOtherTypes(t *testing.T) {
	var c Codec
	if _, err := c.Marshal(&dnpb.ContainerCommandRequestProto{}); err == nil {
		t.Error("Marshal of a generated message: no error")
	}
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(unhex(t, vectorSuccess))}, &dnpb.ContainerCommandResponseProto{}); err == nil {
		t.Error("Unmarshal into a generated message: no error")
	}
}
