package datanode

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
)

// responseSize is the encoded size of a SUCCESS response carrying n bytes.
func responseSize(n int) int {
	return proto.Size(&dnpb.ContainerCommandResponseProto{
		CmdType: dnpb.Type_Echo.Enum(), TraceID: proto.String(""), Result: dnpb.Result_SUCCESS.Enum(),
		Echo: &dnpb.EchoResponseProto{Payload: make([]byte, n)},
	})
}

func TestEchoSizes(t *testing.T) {
	dns := startDNs(t, holding(1)...)
	c := newClient(t, pipelineOf(dns...), Options{})
	// Largest payloads whose messages still fit the 32 MiB limit.
	const limit = DefaultMaxMessageSize
	maxResp := limit - (responseSize(limit) - limit)
	reqOverhead := proto.Size(NewEchoRequest(Request{ContainerID: 1, Payload: make([]byte, limit)}, testUUID)) - limit
	maxReq := limit - reqOverhead

	tests := []struct {
		name     string
		req      Request
		code     codes.Code
		received int
	}{
		{"empty", Request{ContainerID: 1}, codes.OK, responseSize(0)},
		{"1 byte", Request{ContainerID: 1, PayloadSizeResp: 1, Payload: []byte{7}}, codes.OK, responseSize(1)},
		{"1 KiB", Request{ContainerID: 1, PayloadSizeResp: 1024, Payload: make([]byte, 1024)}, codes.OK, responseSize(1024)},
		{"response at the 32 MiB limit", Request{ContainerID: 1, PayloadSizeResp: int32(maxResp)}, codes.OK, limit},
		{"response 1 byte over", Request{ContainerID: 1, PayloadSizeResp: int32(maxResp + 1)}, codes.ResourceExhausted, 0},
		{"request at the 32 MiB limit", Request{ContainerID: 1, Payload: make([]byte, maxReq)}, codes.OK, responseSize(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := echo(t, c, tt.req)
			if status.Code(err) != tt.code || res.GRPCCode != tt.code {
				t.Fatalf("err %v, code %v; want %v", err, res.GRPCCode, tt.code)
			}
			if tt.code != codes.OK {
				return
			}
			if !res.OK() || res.Attempts != 1 || res.RTT <= 0 || res.DataNode.UUID != dns[0].UUID() {
				t.Fatalf("result %+v", res)
			}
			if res.BytesReceived != tt.received {
				t.Errorf("BytesReceived %d, want %d", res.BytesReceived, tt.received)
			}
		})
	}
}

// TestRequestOverLimit: the DataNode refuses a message over 32 MiB even when
// the client would send it.
func TestRequestOverLimit(t *testing.T) {
	dns := startDNs(t, holding(1)...)
	c := newClient(t, pipelineOf(dns...), Options{MaxMessageSize: 64 << 20, NoRetry: true})
	res, err := echo(t, c, Request{ContainerID: 1, Payload: make([]byte, DefaultMaxMessageSize)})
	if status.Code(err) != codes.ResourceExhausted || res.GRPCCode != codes.ResourceExhausted {
		t.Fatalf("err %v result %+v", err, res)
	}
}

// TestEchoResults runs each dispatch row of docs/ozone-echo.md#echo-dispatch-order through the
// client.
func TestEchoResults(t *testing.T) {
	plain := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0, 7: 0}, Missing: []int64{7}})[0]
	tokens := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0}, TokenVerification: true})[0]
	cPlain := newClient(t, pipelineOf(plain), Options{})
	cTokens := newClient(t, pipelineOf(tokens), Options{})
	tests := []struct {
		name   string
		c      *Client
		req    Request
		result dnpb.Result
		msg    string
	}{
		{"token missing", cTokens, Request{ContainerID: 1, ReadOnly: true}, dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			"BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to find any token (empty or null.)"},
		{"token undecodable", cTokens, Request{ContainerID: 1, Token: "!!", ReadOnly: true}, dnpb.Result_BLOCK_TOKEN_VERIFICATION_FAILED,
			"BLOCK_TOKEN_VERIFICATION_FAILED for null: Failed to decode token : !!"},
		{"token valid-looking", cTokens, Request{ContainerID: 1, Token: "AAAAAA", ReadOnly: true}, dnpb.Result_SUCCESS, ""},
		{"missing container", cPlain, Request{ContainerID: 7}, dnpb.Result_CONTAINER_MISSING,
			"ContainerID 7 has been lost and cannot be recreated on this DataNode"},
		{"container not found", cPlain, Request{ContainerID: 9, ReadOnly: true}, dnpb.Result_CONTAINER_NOT_FOUND, "ContainerID 9 does not exist"},
		{"negative size", cPlain, Request{ContainerID: 1, PayloadSizeResp: -1, ReadOnly: true}, dnpb.Result_CONTAINER_INTERNAL_ERROR, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := echo(t, tt.c, tt.req)
			if res.Code != tt.result || res.GRPCCode != codes.OK {
				t.Fatalf("result %+v err %v, want %v", res, err, tt.result)
			}
			if tt.result == dnpb.Result_SUCCESS {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ee *EchoError
			if !errors.As(err, &ee) || ee.Code != tt.result {
				t.Fatalf("error %v is not an *EchoError with %v", err, tt.result)
			}
			if tt.msg != "" && (res.Message != tt.msg || ee.Message != tt.msg) {
				t.Errorf("message %q, want %q", res.Message, tt.msg)
			}
			if !strings.Contains(err.Error(), tt.result.String()) {
				t.Errorf("error text %q lacks the result name", err)
			}
		})
	}
}

// TestECUUID: the request carries the first member's uuid even when retried
// on another member (docs/ozone-echo.md#member-order-and-address), so an EC
// replica on the second member rejects it; TargetAll and a single target
// use each member's own uuid.
func TestECUUID(t *testing.T) {
	dns := startDNs(t,
		dnsim.Options{}, // holds nothing: CONTAINER_NOT_FOUND
		dnsim.Options{Containers: map[int64]int32{5: 2}}, // EC replica index 2
	)
	p := pipelineOf(dns...)
	res, err := echo(t, newClient(t, p, Options{}), Request{ContainerID: 5, ReadOnly: true})
	if res.Code != dnpb.Result_INVALID_ARGUMENT || res.Attempts != 2 || res.DataNode.UUID != dns[1].UUID() {
		t.Fatalf("result %+v err %v", res, err)
	}
	want := "Request is trying to write to node with uuid : " + dns[0].UUID() + " but the current nodeId is: " + dns[1].UUID() + " ."
	if res.Message != want {
		t.Fatalf("message %q\nwant %q", res.Message, want)
	}
	for _, target := range []Target{Target(dns[1].UUID()), Target(dns[1].Addr())} {
		if res, err := echo(t, newClient(t, p, Options{Target: target}), Request{ContainerID: 5, ReadOnly: true}); err != nil || !res.OK() {
			t.Fatalf("target %s: %+v %v", target, res, err)
		}
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		setup    func(dns []*dnsim.DataNode)
		attempts int
		served   int // index of the member that answers last
		code     codes.Code
		result   dnpb.Result
	}{
		{name: "first stopped", setup: func(dns []*dnsim.DataNode) { dns[0].Stop() },
			attempts: 2, served: 1, result: dnpb.Result_SUCCESS},
		{name: "first returns an error result", setup: func(dns []*dnsim.DataNode) {
			dns[0].SetFaults(dnsim.Faults{ErrorRate: 1, ErrorResult: dnpb.Result_CLOSED_CONTAINER_IO})
		}, attempts: 2, served: 1, result: dnpb.Result_SUCCESS},
		{name: "first two fail with gRPC errors", setup: func(dns []*dnsim.DataNode) {
			dns[0].SetFaults(dnsim.Faults{ErrorRate: 1, ErrorCode: codes.Internal})
			dns[1].Stop()
		}, attempts: 3, served: 2, result: dnpb.Result_SUCCESS},
		{name: "no retry on UNAUTHENTICATED", setup: func(dns []*dnsim.DataNode) {
			dns[0].SetFaults(dnsim.Faults{ErrorRate: 1, ErrorCode: codes.Unauthenticated})
		}, attempts: 1, served: 0, code: codes.Unauthenticated},
		{name: "all fail, last failure reported", setup: func(dns []*dnsim.DataNode) {
			dns[0].SetFaults(dnsim.Faults{ErrorRate: 1, ErrorCode: codes.Internal})
			dns[1].Stop()
			dns[2].SetFaults(dnsim.Faults{ErrorRate: 1, ErrorResult: dnpb.Result_DISK_OUT_OF_SPACE})
		}, attempts: 3, served: 2, result: dnpb.Result_DISK_OUT_OF_SPACE},
		{name: "retries off", opts: Options{NoRetry: true}, setup: func(dns []*dnsim.DataNode) { dns[0].Stop() },
			attempts: 1, served: 0, code: codes.Unavailable},
	}
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				dns := startDNs(t, holding(3)...)
				tt.setup(dns)
				opts := tt.opts
				opts.Streams = mode
				res, err := echo(t, newClient(t, pipelineOf(dns...), opts), Request{ContainerID: 1, ReadOnly: true})
				if res.Attempts != tt.attempts || res.DataNode.UUID != dns[tt.served].UUID() ||
					res.GRPCCode != tt.code || res.Code != tt.result {
					t.Fatalf("result %+v err %v", res, err)
				}
				if (err == nil) != (tt.result == dnpb.Result_SUCCESS) || status.Code(err) != tt.code && tt.code != codes.OK {
					t.Fatalf("err %v", err)
				}
				if want := tt.attempts * proto.Size(NewEchoRequest(Request{ContainerID: 1, ReadOnly: true}, dns[0].UUID())); res.BytesSent != want {
					t.Errorf("BytesSent %d, want %d", res.BytesSent, want)
				}
				checkEarlier(t, res, dns)
			})
		}
	}
}

// checkEarlier checks that a call's Earlier are its failed attempts before the last, on the
// members in order, and that their own times and the last attempt's make up its RTT.
func checkEarlier(t *testing.T, res Result, dns []*dnsim.DataNode) {
	t.Helper()
	if len(res.Earlier) != res.Attempts-1 || (res.Attempts == 1 && res.Earlier != nil) {
		t.Fatalf("%d attempts, Earlier %+v", res.Attempts, res.Earlier)
	}
	sum := res.LastTook()
	for i, a := range res.Earlier {
		if a.DataNode.UUID != dns[i].UUID() || a.Took <= 0 || (a.GRPCCode == codes.OK && a.Code == dnpb.Result_SUCCESS) {
			t.Errorf("attempt %d: %+v, want a failure of %s", i+1, a, dns[i].UUID())
		}
		sum += a.Took
	}
	if res.LastTook() <= 0 || sum != res.RTT {
		t.Errorf("last attempt %s, attempts add up to %s, RTT %s", res.LastTook(), sum, res.RTT)
	}
}

func TestTargetAll(t *testing.T) {
	dns := startDNs(t, holding(3)...)
	c := newClient(t, pipelineOf(dns...), Options{Target: TargetAll})
	p, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		res, err := c.Echo(context.Background(), p)
		if err != nil || res.DataNode.UUID != dns[i%3].UUID() {
			t.Fatalf("call %d: %+v %v", i, res, err)
		}
	}
	for i, d := range dns {
		if got := d.Stats().Successes; got != 2 {
			t.Errorf("DataNode %d served %d calls, want 2", i, got)
		}
	}
	dns[1].Stop()
	failed := 0
	for i := 0; i < 3; i++ {
		res, err := c.Echo(context.Background(), p)
		if res.Attempts != 1 {
			t.Fatalf("TargetAll retried: %+v", res)
		}
		if err != nil {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failures with one of three DataNodes down, want 1", failed)
	}
}

func TestTargetOne(t *testing.T) {
	dns := startDNs(t, holding(3)...)
	c := newClient(t, pipelineOf(dns...), Options{Target: Target(dns[2].UUID())})
	for i := 0; i < 3; i++ {
		if res, err := echo(t, c, Request{ContainerID: 1}); err != nil || res.DataNode.UUID != dns[2].UUID() {
			t.Fatalf("%+v %v", res, err)
		}
	}
	if dns[0].Stats().Calls+dns[1].Stats().Calls != 0 || dns[2].Stats().Calls != 3 {
		t.Fatal("calls went to another DataNode")
	}
}
