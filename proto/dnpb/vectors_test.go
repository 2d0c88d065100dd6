package dnpb_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// The vectors below are docs/ozone-echo.md#test-vectors (V1–V9), checked upstream with
// protoc 3.21.12 against apache/ozone DatanodeClientProtocol.proto. They pin
// field numbers, proto2 presence (explicit "" and 0 values) and field order.

const testUUID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

// echoRequest builds a request the way the Java client does (ContainerProtocolCalls.echo):
// traceID "" and every echo field set explicitly, version 3.
func echoRequest(containerID int64, token string, payload []byte, sizeResp, sleepMs int32) *dnpb.ContainerCommandRequestProto {
	r := &dnpb.ContainerCommandRequestProto{
		CmdType:      dnpb.Type_Echo.Enum(),
		TraceID:      proto.String(""),
		ContainerID:  proto.Int64(containerID),
		DatanodeUuid: proto.String(testUUID),
		Version:      proto.Uint32(3),
		Echo: &dnpb.EchoRequestProto{
			Payload:         payload,
			PayloadSizeResp: proto.Int32(sizeResp),
			SleepTimeMs:     proto.Int32(sleepMs),
			ReadOnly:        proto.Bool(true),
		},
	}
	if token != "" {
		r.EncodedToken = proto.String(token)
	}
	return r
}

func errorResponse(result dnpb.Result, msg string) *dnpb.ContainerCommandResponseProto {
	return &dnpb.ContainerCommandResponseProto{
		CmdType: dnpb.Type_Echo.Enum(),
		TraceID: proto.String(""),
		Result:  result.Enum(),
		Message: proto.String(msg),
	}
}

func successResponse(payload []byte) *dnpb.ContainerCommandResponseProto {
	return &dnpb.ContainerCommandResponseProto{
		CmdType: dnpb.Type_Echo.Enum(),
		TraceID: proto.String(""),
		Result:  dnpb.Result_SUCCESS.Enum(),
		Echo:    &dnpb.EchoResponseProto{Payload: payload},
	}
}

func TestVectors(t *testing.T) {
	v9req := echoRequest(1, "", []byte{}, 0, 0)
	v9req.ClientId = []byte{1, 2}
	v9req.CallId = proto.Uint64(5)
	v9resp := successResponse([]byte{})
	v9resp.ClientId = []byte{1, 2}
	v9resp.CallId = proto.Uint64(5)

	tests := []struct {
		name string
		msg  proto.Message
		hex  string
	}{
		{"V1 request as freon sends it", echoRequest(1, "", []byte{}, 0, 0),
			"081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001"},
		{"V2 success, empty payload", successResponse([]byte{}),
			"081612001801ba01020a00"},
		{"V3 success, 4-byte payload", successResponse([]byte{1, 2, 3, 4}),
			"081612001801ba01060a0401020304"},
		{"V4 request with token, payload, sleep", echoRequest(7, "AAAAAA", []byte{0, 1, 2, 3}, 1024, 5),
			"081612001807222433663235303465302d346638392d343164332d396130632d303330356538326333333031ba0106414141414141c00103d2010d0a040001020310800818052001"},
		{"V5 CONTAINER_NOT_FOUND", errorResponse(dnpb.Result_CONTAINER_NOT_FOUND, "ContainerID 7 does not exist"),
			"081612001809221c436f6e7461696e65724944203720646f6573206e6f74206578697374"},
		{"V6 CONTAINER_MISSING", errorResponse(dnpb.Result_CONTAINER_MISSING, "ContainerID 7 has been lost and cannot be recreated on this DataNode"),
			"0816120018282244436f6e7461696e65724944203720686173206265656e206c6f737420616e642063616e6e6f7420626520726563726561746564206f6e207468697320446174614e6f6465"},
		{"V7 token missing", errorResponse(dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			"BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to find any token (empty or null.)"),
			"0816120018292253424c4f434b5f544f4b454e5f564552494649434154494f4e5f4641494c454420666f72206e756c6c3a204661696c656420746f2066696e6420616e7920746f6b656e2028656d707479206f72206e756c6c2e29"},
		{"V8 token undecodable", errorResponse(dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			"BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to decode token : !!"),
			"0816120018292245424c4f434b5f544f4b454e5f564552494649434154494f4e5f4641494c454420666f72206e756c6c3a204661696c656420746f206465636f646520746f6b656e203a202121"},
		{"V9 request with clientId and callId", v9req,
			"081612001801222433663235303465302d346638392d343164332d396130632d303330356538326333333031c00103d201080a00100018002001a206020102a80605"},
		{"V9 response with clientId and callId", v9resp,
			"081612001801ba01020a00a206020102a80605"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := hex.DecodeString(tt.hex)
			if err != nil {
				t.Fatalf("bad test vector: %v", err)
			}
			got, err := proto.MarshalOptions{Deterministic: true}.Marshal(tt.msg)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("marshal mismatch\n got %x\nwant %x", got, want)
			}
			back := tt.msg.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(want, back); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if !proto.Equal(back, tt.msg) {
				t.Fatalf("round trip mismatch\n got %v\nwant %v", back, tt.msg)
			}
			if len(back.ProtoReflect().GetUnknown()) != 0 {
				t.Fatalf("vector decoded with unknown fields: %x", back.ProtoReflect().GetUnknown())
			}
		})
	}
}

// TestV1GRPCFrame checks the length-prefixed gRPC message of V1 (docs/ozone-echo.md#test-vectors):
// compressed flag 0, then a 4-byte big-endian length 0x3a.
func TestV1GRPCFrame(t *testing.T) {
	b, err := proto.Marshal(echoRequest(1, "", []byte{}, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 58 {
		t.Fatalf("V1 is %d bytes, want 58", len(b))
	}
	frame := append([]byte{0, 0, 0, 0, byte(len(b))}, b...)
	if got := hex.EncodeToString(frame[:5]); got != "000000003a" {
		t.Fatalf("frame prefix %s, want 000000003a", got)
	}
}

// TestRequiredFields pins the strict proto2 behaviour both sides rely on: a
// request without cmdType, containerID or datanodeUuid does not parse, and a
// response without result does not parse (docs/ozone-echo.md#encoding-pitfalls).
func TestRequiredFields(t *testing.T) {
	full := echoRequest(1, "", []byte{}, 0, 0)
	tests := []struct {
		name  string
		clear func(*dnpb.ContainerCommandRequestProto)
	}{
		{"no cmdType", func(r *dnpb.ContainerCommandRequestProto) { r.CmdType = nil }},
		{"no containerID", func(r *dnpb.ContainerCommandRequestProto) { r.ContainerID = nil }},
		{"no datanodeUuid", func(r *dnpb.ContainerCommandRequestProto) { r.DatanodeUuid = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := proto.Clone(full).(*dnpb.ContainerCommandRequestProto)
			tt.clear(r)
			b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := proto.Unmarshal(b, &dnpb.ContainerCommandRequestProto{}); err == nil {
				t.Fatal("unmarshal accepted a request without a required field")
			}
		})
	}
	resp := successResponse(nil)
	resp.Result = nil
	b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, &dnpb.ContainerCommandResponseProto{}); err == nil {
		t.Fatal("unmarshal accepted a response without result")
	}
}
