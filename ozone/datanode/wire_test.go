package datanode

import (
	"encoding/hex"
	"errors"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Replies of proto/dnpb/vectors_test.go: what Ozone's DataNode puts on the wire.
const (
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

// The codec adds no allocation to a successful call, and parses a failed one for its message.
func TestCodec(t *testing.T) {
	e, err := encode(NewEchoRequest(Request{ContainerID: 1, ReadOnly: true}, testUUID))
	if err != nil {
		t.Fatal(err)
	}
	one := mem.BufferSlice{mem.SliceBuffer(unhex(t, vectorSuccess))}
	raw := unhex(t, vectorSuccess4B)
	split := mem.BufferSlice{mem.SliceBuffer(raw[:5]), mem.SliceBuffer(raw[5:])}
	var r reply
	var c codec
	for name, op := range map[string]func(){
		"marshal":             func() { _, _ = c.Marshal(e) },
		"unmarshal one piece": func() { _ = c.Unmarshal(one, &r) },
		"unmarshal split":     func() { _ = c.Unmarshal(split, &r) },
	} {
		if n := testing.AllocsPerRun(100, op); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
	if err := c.Unmarshal(split, &r); err != nil || r.result != dnpb.Result_SUCCESS || r.size != len(raw) {
		t.Errorf("split reply: %+v, %v", r, err)
	}
	failed, _ := proto.Marshal(&dnpb.ContainerCommandResponseProto{CmdType: dnpb.Type_Echo.Enum(),
		Result: dnpb.Result_CONTAINER_NOT_FOUND.Enum(), Message: proto.String("ContainerID 7 does not exist")})
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(failed)}, &r); err != nil ||
		r.result != dnpb.Result_CONTAINER_NOT_FOUND || r.message != "ContainerID 7 does not exist" {
		t.Errorf("failed reply: %+v, %v", r, err)
	}
	if _, err := c.Marshal(&dnpb.ContainerCommandRequestProto{}); err == nil {
		t.Error("Marshal of a generated message: no error")
	}
	if err := c.Unmarshal(one, &dnpb.ContainerCommandResponseProto{}); err == nil {
		t.Error("Unmarshal into a generated message: no error")
	}
}
