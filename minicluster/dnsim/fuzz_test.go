package dnsim

import (
	"context"
	"encoding/hex"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// FuzzDispatch feeds arbitrary request bytes through the parser and the
// dispatcher: whatever parses must get a well-formed response or a gRPC
// error, never a panic.
func FuzzDispatch(f *testing.F) {
	for _, v := range []string{
		"081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001",
		"081612001807222433663235303465302d346638392d343164332d396130632d303330356538326333333031ba0106414141414141c00103d2010d0a040001020310800818052001",
		"081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001a206020102a80605",
	} {
		b, _ := hex.DecodeString(v)
		f.Add(b, false)
		f.Add(b, true)
	}
	plain, err := New(Options{UUID: testUUID, Containers: map[int64]int32{1: 0, 7: 3}, Missing: []int64{1}, MaxResponsePayload: 1 << 10})
	if err != nil {
		f.Fatal(err)
	}
	tokens, err := New(Options{UUID: testUUID, Containers: map[int64]int32{1: 0}, TokenVerification: true, MaxResponsePayload: 1 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte, tokenMode bool) {
		req := new(dnpb.ContainerCommandRequestProto)
		if proto.Unmarshal(b, req) != nil {
			return
		}
		if req.Echo != nil {
			req.Echo.SleepTimeMs = nil // keep iterations fast
		}
		d := plain
		if tokenMode {
			d = tokens
		}
		resp, err := d.dispatch(context.Background(), req)
		if err != nil {
			return
		}
		if _, err := proto.Marshal(resp); err != nil {
			t.Fatalf("response does not marshal: %v", err)
		}
		if (resp.GetResult() == dnpb.Result_SUCCESS) != (resp.Echo != nil) {
			t.Fatalf("echo body present = %v with result %v", resp.Echo != nil, resp.GetResult())
		}
	})
}
