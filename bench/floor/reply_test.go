package floor

import (
	"encoding/hex"
	"errors"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

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

func TestCheckReply(t *testing.T) {
	notFound, _ := proto.Marshal(&dnpb.ContainerCommandResponseProto{CmdType: dnpb.Type_Echo.Enum(),
		Result: dnpb.Result_CONTAINER_NOT_FOUND.Enum(), Message: proto.String("ContainerID 7 does not exist")})
	tests := []struct {
		name    string
		hex     string
		want    dnpb.Result
		wantErr bool
	}{
		{"success, empty payload", vectorSuccess, dnpb.Result_SUCCESS, false},
		{"success, 4-byte payload", vectorSuccess4B, dnpb.Result_SUCCESS, false},
		{"error result with message", hex.EncodeToString(notFound), dnpb.Result_CONTAINER_NOT_FOUND, false},
		{"last result wins", "0816180118061801181b", dnpb.Result_CLOSED_CONTAINER_RETRY, false},
		{"a value Result does not name", "0816187f", dnpb.Result(127), false},
		{"result missing", "08161200", 0, true},
		{"cmdType missing", "1801", 0, true},
		{"result with the wrong wire type", "08161a0101", 0, true},
		{"truncated varint", "081618", 0, true},
		{"truncated nested message", "08161801ba0105", 0, true},
		{"field number 0", "0001", 0, true},
		{"empty", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckReply(unhex(t, tt.hex))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("CheckReply = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v is not ErrMalformed", err)
			}
		})
	}
}

// FuzzCheckReply holds CheckReply to the generated parser: whatever proto.Unmarshal accepts,
// CheckReply accepts with the same result. (CheckReply may accept more: it does not look inside
// the nested echo message.)
func FuzzCheckReply(f *testing.F) {
	for _, s := range []string{vectorSuccess, vectorSuccess4B, "0816180118061801181b", "0816187f", "081618"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := CheckReply(b)
		var m dnpb.ContainerCommandResponseProto
		if proto.Unmarshal(b, &m) != nil {
			return
		}
		if err != nil || got != m.GetResult() {
			t.Fatalf("CheckReply(%x) = %v, %v; proto.Unmarshal finds result %v", b, got, err, m.GetResult())
		}
	})
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
