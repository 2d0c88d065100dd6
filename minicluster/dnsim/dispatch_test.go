package dnsim

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// TestDispatch walks the Echo dispatch table of docs/ozone-echo.md#echo-dispatch-order over
// real loopback gRPC. Where docs/ozone-echo.md#test-vectors has a vector for the response, the
// response must match it byte for byte.
func TestDispatch(t *testing.T) {
	const otherUUID = "00000000-0000-4000-8000-000000000001"
	plain := startDN(t, Options{
		UUID:       testUUID,
		Containers: map[int64]int32{1: 0, 7: 0, 8: 0, 20: 2},
		Missing:    []int64{7, 9},
	})
	tokens := startDN(t, Options{UUID: testUUID, Containers: map[int64]int32{1: 0, 7: 0}, TokenVerification: true})
	ccPlain, ccTokens := dial(t, plain), dial(t, tokens)

	tests := []struct {
		name     string
		cc       *grpc.ClientConn
		edit     func(r *dnpb.ContainerCommandRequestProto)
		result   dnpb.Result
		msg      string
		vector   string // expected response bytes, if docs/ozone-echo.md#test-vectors has them
		payload  int    // expected echo payload size on SUCCESS
		clientID bool   // expect clientId/callId copied
	}{
		{name: "V2 success empty payload", cc: ccPlain, result: dnpb.Result_SUCCESS, vector: "081612001801ba01020a00"},
		{name: "success 1 byte", cc: ccPlain, result: dnpb.Result_SUCCESS, payload: 1,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.Echo.PayloadSizeResp = proto.Int32(1) }},
		{name: "success 1 MiB+1", cc: ccPlain, result: dnpb.Result_SUCCESS, payload: 1<<20 + 1,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.Echo.PayloadSizeResp = proto.Int32(1<<20 + 1) }},
		{name: "success without echo body", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.Echo = nil }},
		{name: "traceID absent is still returned", cc: ccPlain, result: dnpb.Result_SUCCESS, vector: "081612001801ba01020a00",
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.TraceID = nil }},
		{name: "V7 token missing", cc: ccTokens, result: dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			vector: "0816120018292253424c4f434b5f544f4b454e5f564552494649434154494f4e5f4641494c454420666f72206e756c6c3a204661696c656420746f2066696e6420616e7920746f6b656e2028656d707479206f72206e756c6c2e29"},
		{name: "token empty string", cc: ccTokens, result: dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED, msg: msgTokenMissing,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.EncodedToken = proto.String("") }},
		{name: "V8 token undecodable", cc: ccTokens, result: dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			edit:   func(r *dnpb.ContainerCommandRequestProto) { r.EncodedToken = proto.String("!!") },
			vector: "0816120018292245424c4f434b5f544f4b454e5f564552494649434154494f4e5f4641494c454420666f72206e756c6c3a204661696c656420746f206465636f646520746f6b656e203a202121"},
		{name: "empty token AAAAAA passes", cc: ccTokens, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.EncodedToken = proto.String("AAAAAA") }},
		{name: "token ignored when verification is off", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.EncodedToken = proto.String("!!") }},
		{name: "token check precedes container lookup", cc: ccTokens, result: dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED, msg: msgTokenMissing,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.ContainerID = proto.Int64(404) }},
		{name: "V6 missing container, not read-only", cc: ccPlain, result: dnpb.Result_CONTAINER_MISSING,
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ContainerID = proto.Int64(7)
				r.Echo.ReadOnly = proto.Bool(false)
			},
			vector: "0816120018282244436f6e7461696e65724944203720686173206265656e206c6f737420616e642063616e6e6f7420626520726563726561746564206f6e207468697320446174614e6f6465"},
		{name: "missing container, readOnly absent", cc: ccPlain, result: dnpb.Result_CONTAINER_MISSING,
			msg: "ContainerID 7 has been lost and cannot be recreated on this DataNode",
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ContainerID = proto.Int64(7)
				r.Echo.ReadOnly = nil
			}},
		{name: "missing container, read-only passes", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.ContainerID = proto.Int64(7) }},
		{name: "missing and not held, not read-only", cc: ccPlain, result: dnpb.Result_CONTAINER_MISSING,
			msg: "ContainerID 9 has been lost and cannot be recreated on this DataNode",
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ContainerID = proto.Int64(9)
				r.Echo.ReadOnly = proto.Bool(false)
			}},
		{name: "V5 container not found", cc: ccPlain, result: dnpb.Result_CONTAINER_NOT_FOUND,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.ContainerID = proto.Int64(9) },
			msg:  "ContainerID 9 does not exist"},
		{name: "EC replica, uuid mismatch", cc: ccPlain, result: dnpb.Result_INVALID_ARGUMENT,
			msg: "Request is trying to write to node with uuid : " + otherUUID + " but the current nodeId is: " + testUUID + " .",
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ContainerID = proto.Int64(20)
				r.DatanodeUuid = proto.String(otherUUID)
			}},
		{name: "EC replica, own uuid", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.ContainerID = proto.Int64(20) }},
		{name: "non-EC replica ignores uuid", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.DatanodeUuid = proto.String(otherUUID) }},
		{name: "negative payloadSizeResp", cc: ccPlain, result: dnpb.Result_CONTAINER_INTERNAL_ERROR, msg: msgNegativeSize,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.Echo.PayloadSizeResp = proto.Int32(-1) }},
		{name: "V9 clientId and callId copied", cc: ccPlain, result: dnpb.Result_SUCCESS, clientID: true,
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ClientId = []byte{1, 2}
				r.CallId = proto.Uint64(5)
			},
			vector: "081612001801ba01020a00a206020102a80605"},
		{name: "clientId alone not copied", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.ClientId = []byte{1, 2} }},
		{name: "callId alone not copied", cc: ccPlain, result: dnpb.Result_SUCCESS,
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.CallId = proto.Uint64(5) }},
		{name: "error keeps clientId and callId", cc: ccPlain, result: dnpb.Result_CONTAINER_NOT_FOUND, clientID: true,
			msg: "ContainerID 404 does not exist",
			edit: func(r *dnpb.ContainerCommandRequestProto) {
				r.ContainerID = proto.Int64(404)
				r.ClientId = []byte{1, 2}
				r.CallId = proto.Uint64(5)
			}},
		{name: "other command type", cc: ccPlain, result: dnpb.Result_UNSUPPORTED_REQUEST,
			msg:  "dnsim: command type ReadChunk is not supported by the Echo emulator",
			edit: func(r *dnpb.ContainerCommandRequestProto) { r.CmdType = dnpb.Type_ReadChunk.Enum() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := echoReq(1)
			if tt.edit != nil {
				tt.edit(req)
			}
			resp, err := call(t, tt.cc, req)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if got := resp.GetResult(); got != tt.result {
				t.Fatalf("result %v (%q), want %v", got, resp.GetMessage(), tt.result)
			}
			if resp.GetCmdType() != req.GetCmdType() || resp.TraceID == nil || resp.GetTraceID() != req.GetTraceID() {
				t.Errorf("cmdType/traceID not copied: %v", resp)
			}
			if tt.vector != "" {
				got, _ := proto.Marshal(resp)
				if want, _ := hex.DecodeString(tt.vector); !bytes.Equal(got, want) {
					t.Errorf("response bytes\n got %x\nwant %s", got, tt.vector)
				}
			}
			if tt.msg != "" && resp.GetMessage() != tt.msg {
				t.Errorf("message %q, want %q", resp.GetMessage(), tt.msg)
			}
			if (resp.ClientId != nil || resp.CallId != nil) != tt.clientID {
				t.Errorf("clientId/callId present = %v, want %v", resp.ClientId != nil || resp.CallId != nil, tt.clientID)
			}
			if tt.result != dnpb.Result_SUCCESS {
				if resp.Echo != nil {
					t.Errorf("error response carries an echo body")
				}
				return
			}
			if resp.Message != nil {
				t.Errorf("success carries a message %q", resp.GetMessage())
			}
			if resp.Echo == nil || resp.Echo.Payload == nil || len(resp.Echo.Payload) != tt.payload {
				t.Errorf("echo payload %d bytes, want %d (present)", len(resp.GetEcho().GetPayload()), tt.payload)
			}
		})
	}
}

// TestContainerNotFoundVector checks V5 (container 7, not held).
func TestContainerNotFoundVector(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	resp, err := call(t, dial(t, d), echoReq(7))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := proto.Marshal(resp)
	if want := "081612001809221c436f6e7461696e65724944203720646f6573206e6f74206578697374"; hex.EncodeToString(got) != want {
		t.Fatalf("got %x\nwant %s", got, want)
	}
}

// TestSleep checks that sleepTimeMs delays the answer (a lower bound only).
func TestSleep(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	req := echoReq(1)
	req.Echo.SleepTimeMs = proto.Int32(50)
	start := time.Now()
	resp, err := call(t, dial(t, d), req)
	if err != nil || resp.GetResult() != dnpb.Result_SUCCESS {
		t.Fatalf("resp %v err %v", resp, err)
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Fatalf("answered after %v, want >= 50ms", el)
	}
}

// TestStrictParsing sends requests that lack a proto2 required field. The
// stream must fail with a gRPC error, as the Java parser makes it on a real
// DataNode, and no response may be sent.
func TestStrictParsing(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	cc := dial(t, d)
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
			req := echoReq(1)
			tt.clear(req)
			raw, err := proto.MarshalOptions{AllowPartial: true}.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			cs, err := cc.NewStream(ctx, &dnpb.XceiverClientProtocolService_ServiceDesc.Streams[0],
				dnpb.XceiverClientProtocolService_Send_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := cs.SendMsg(raw); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			_ = cs.CloseSend()
			var out []byte
			err = cs.RecvMsg(&out)
			if status.Code(err) != codes.Internal {
				t.Fatalf("got %v (%x), want gRPC INTERNAL", err, out)
			}
		})
	}
}

// TestStreamManyRequests sends several requests on one stream: each gets one
// response, in order, and the stream ends OK after the half-close
// (docs/ozone-echo.md#stream-handling).
func TestStreamManyRequests(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}})
	s, cancel := openStream(t, dial(t, d))
	defer cancel()
	sizes := []int32{3, 0, 5, -1, 1}
	for _, n := range sizes {
		req := echoReq(1)
		req.Echo.PayloadSizeResp = proto.Int32(n)
		if err := s.Send(req); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	for i, n := range sizes {
		resp, err := s.Recv()
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if n < 0 {
			if resp.GetResult() != dnpb.Result_CONTAINER_INTERNAL_ERROR {
				t.Fatalf("response %d: %v", i, resp.GetResult())
			}
			continue
		}
		if got := len(resp.GetEcho().GetPayload()); got != int(n) {
			t.Fatalf("response %d has %d bytes, want %d", i, got, n)
		}
	}
	if _, err := s.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last response: %v, want io.EOF (status OK)", err)
	}
	st := d.Stats()
	if st.Streams != 1 || st.Calls != 5 || st.Successes != 4 || st.Failures != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestResponseLimit: payloads above MaxResponsePayload end the stream.
func TestResponseLimit(t *testing.T) {
	d := startDN(t, Options{Containers: map[int64]int32{1: 0}, MaxResponsePayload: 10})
	req := echoReq(1)
	req.Echo.PayloadSizeResp = proto.Int32(11)
	if _, err := call(t, dial(t, d), req); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("got %v, want RESOURCE_EXHAUSTED", err)
	}
}
