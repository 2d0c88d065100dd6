package scm

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

func TestCallsAgainstEmulator(t *testing.T) {
	s := startSCM(t, scmsim.Config{})
	c := newClient(t, fastOptions("hadoop", s.Addr()))
	ctx := testCtx(t)

	info, err := c.GetContainer(ctx, 1)
	if err != nil || info.GetContainerID() != 1 || info.GetState() != hddspb.LifeCycleState_OPEN || info.GetPipelineID().GetId() != pipelineA {
		t.Fatalf("GetContainer = %v, %v", info, err)
	}
	ps, err := c.ListPipelines(ctx)
	if err != nil || len(ps) != 2 || ps[0].GetMembers()[0].GetIpAddress() != "10.0.0.11" {
		t.Fatalf("ListPipelines = %v, %v", ps, err)
	}
	cwp, err := c.GetContainerWithPipeline(ctx, 1)
	if err != nil || cwp.GetPipeline().GetId().GetId() != pipelineA || cwp.GetContainerInfo().GetContainerID() != 1 {
		t.Fatalf("GetContainerWithPipeline = %v, %v", cwp, err)
	}
	tok, err := c.GetContainerToken(ctx, 1)
	if err != nil || token.Encode(tok) != "AAAAAA" {
		t.Fatalf("GetContainerToken (tokens off) = %q, %v", token.Encode(tok), err)
	}
}

func TestContainerTokenFromEmulator(t *testing.T) {
	s := startSCM(t, scmsim.Config{TokensEnabled: true, TokenExpiry: time.Hour})
	c := newClient(t, fastOptions("alice", s.Addr()))
	tok, err := c.GetContainerToken(testCtx(t), 7)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Kind != token.ContainerTokenKind || tok.Service != "#7" {
		t.Errorf("token kind/service = %q/%q", tok.Kind, tok.Service)
	}
	id, err := token.ParseContainerIdentifier(tok.Identifier)
	if err != nil || id.GetOwnerId() != "alice" || id.GetContainerId().GetId() != 7 {
		t.Fatalf("identifier = %v, %v", id, err)
	}
	keys := func(k token.KeyID) (token.SecretKey, bool) { return s.SecretKey(), k == s.SecretKey().ID }
	if err := token.VerifyContainerToken(tok, 7, keys, time.Now()); err != nil {
		t.Errorf("token does not verify: %v", err)
	}
	// The URL form survives the trip a DataNode request makes.
	back, err := token.Decode(token.Encode(tok))
	if err != nil || token.VerifyContainerToken(back, 7, keys, time.Now()) != nil {
		t.Errorf("decoded token: %v", err)
	}
}

// The wrappers are byte-for-byte those of docs/hadoop-rpc.md#building-blocks,
// docs/ozone-scm.md#what-the-java-client-sends.
func TestRequestWrappers(t *testing.T) {
	got := make(chan []byte, 1)
	addr := fakeSCM(t, func(_ context.Context, _ rpcserver.CallInfo, req []byte) (proto.Message, error) {
		got <- append([]byte{}, req...)
		return nil, &hadooprpc.RemoteError{Class: "test.Stop", Message: "captured"}
	})
	o := fastOptions("hadoop", addr)
	o.MaxRetries = NoRetries // one attempt is enough to capture
	c := newClient(t, o)
	ctx := testCtx(t)
	tests := []struct {
		name string
		call func() error
		hex  string
	}{
		{"GetContainer(1)", func() error { _, err := c.GetContainer(ctx, 1); return err }, "0802120018033a0408011200"},
		{"ListPipelines", func() error { _, err := c.ListPipelines(ctx); return err }, "08091200180372020a00"},
		{"GetContainerToken(1)", func() error { _, err := c.GetContainerToken(ctx, 1); return err }, "081b120018038202040a020801"},
		{"GetContainerWithPipeline(1)", func() error { _, err := c.GetContainerWithPipeline(ctx, 1); return err }, "080312001803420408011200"},
	}
	for _, tt := range tests {
		tt.call()
		if b := <-got; hex.EncodeToString(b) != tt.hex {
			t.Errorf("%s wrapper = %x, want %s", tt.name, b, tt.hex)
		}
	}
}

func TestLookupPipeline(t *testing.T) {
	s := startSCM(t, scmsim.Config{})
	c := newClient(t, fastOptions("hadoop", s.Addr()))
	ctx := testCtx(t)
	tests := []struct {
		id        uint64
		mode      LookupMode
		pipeline  string // "" when a read pipeline is built
		state     hddspb.PipelineState
		noPipe    bool
		wantState string
	}{
		{id: 1, mode: LookupFreon, pipeline: pipelineA, state: hddspb.PipelineState_PIPELINE_OPEN},
		{id: 1, mode: LookupWithPipeline, pipeline: pipelineA, state: hddspb.PipelineState_PIPELINE_OPEN},
		{id: 4, mode: LookupFreon, pipeline: pipelineB, state: hddspb.PipelineState_PIPELINE_OPEN}, // matched by uuid128
		{id: 2, mode: LookupFreon, noPipe: true, wantState: "CLOSED"},
		{id: 2, mode: LookupWithPipeline, state: hddspb.PipelineState_PIPELINE_CLOSED}, // read pipeline from replicas
		{id: 3, mode: LookupFreon, noPipe: true, wantState: "OPEN"},
		{id: 3, mode: LookupWithPipeline, noPipe: true, wantState: "OPEN"}, // no replicas known
	}
	for _, tt := range tests {
		l, err := c.LookupPipeline(ctx, tt.id, tt.mode)
		if tt.noPipe {
			if !errors.Is(err, ErrNoPipeline) || !strings.Contains(err.Error(), "(state "+tt.wantState) ||
				!strings.Contains(err.Error(), "echo needs an OPEN container whose pipeline exists") {
				t.Errorf("container %d %v: err = %v, want ErrNoPipeline", tt.id, tt.mode, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("container %d %v: %v", tt.id, tt.mode, err)
			continue
		}
		gotID := l.Pipeline.GetId().GetId()
		if gotID == "" {
			gotID = uuidString(l.Pipeline.GetId().GetUuid128())
		}
		if tt.pipeline != "" && gotID != tt.pipeline || l.Pipeline.GetState() != tt.state ||
			l.Pipeline.GetMembers()[0].GetUuid() != dn1UUID || l.Container.GetContainerID() != int64(tt.id) {
			t.Errorf("container %d %v: pipeline %s %v", tt.id, tt.mode, gotID, l.Pipeline.GetState())
		}
	}
	if _, err := c.LookupPipeline(ctx, 1, LookupMode(9)); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestContainerNotFound(t *testing.T) {
	s := startSCM(t, scmsim.Config{})
	c := newClient(t, fastOptions("hadoop", s.Addr()))
	for _, call := range []func() error{
		func() error { _, err := c.GetContainer(testCtx(t), 99); return err },
		func() error { _, err := c.LookupPipeline(testCtx(t), 99, LookupWithPipeline); return err },
	} {
		before := s.Requests()
		err := call()
		if !errors.Is(err, ErrContainerNotFound) {
			t.Fatalf("err = %v, want ErrContainerNotFound", err)
		}
		if !strings.HasPrefix(err.Error(), "scm "+s.Addr()+": get container 99") || !strings.HasSuffix(err.Error(), "Container #99 not found") {
			t.Errorf("message = %q", err)
		}
		if n := s.Requests() - before; n != 1 {
			t.Errorf("%d attempts, want 1 (not retried)", n)
		}
	}
}

func TestAccessDenied(t *testing.T) {
	s := startSCM(t, scmsim.Config{Admins: []string{"root"}})
	c := newClient(t, fastOptions("alice", s.Addr()))
	ctx := testCtx(t)
	for _, call := range []func() error{
		func() error { _, err := c.GetContainer(ctx, 1); return err },
		func() error { _, err := c.GetContainerToken(ctx, 1); return err },
		func() error { _, err := c.LookupPipeline(ctx, 1, LookupFreon); return err },
	} {
		before := s.Requests()
		err := call()
		var ad *AccessDeniedError
		if !errors.As(err, &ad) || ad.User != "alice" || !strings.Contains(err.Error(), "not an Ozone administrator") {
			t.Fatalf("err = %v, want *AccessDeniedError", err)
		}
		if n := s.Requests() - before; n != 1 {
			t.Errorf("%d attempts, want 1 (not retried)", n)
		}
	}
	// Non-admin calls still work for alice, and admins pass.
	if _, err := c.ListPipelines(ctx); err != nil {
		t.Errorf("ListPipelines as non-admin: %v", err)
	}
	if _, err := c.LookupPipeline(ctx, 1, LookupWithPipeline); err != nil {
		t.Errorf("GetContainerWithPipeline as non-admin: %v", err)
	}
	root := newClient(t, fastOptions("root", s.Addr()))
	if _, err := root.GetContainer(ctx, 1); err != nil {
		t.Errorf("admin GetContainer: %v", err)
	}
}

func TestKerberosOnlySCM(t *testing.T) {
	s := startSCM(t, scmsim.Config{RPC: rpcserver.Options{KerberosOnly: true}})
	c := newClient(t, fastOptions("alice", s.Addr()))
	_, err := c.GetContainer(testCtx(t), 1)
	var ad *AccessDeniedError
	if !errors.As(err, &ad) || !strings.Contains(err.Error(), "SIMPLE authentication is not enabled") {
		t.Fatalf("err = %v", err)
	}
	if s.Requests() != 0 {
		t.Errorf("handler saw %d requests", s.Requests())
	}
}

func TestRetriableWithNoFailoverStaysOnNode(t *testing.T) {
	var calls atomic.Int64
	addr := fakeSCM(t, func(context.Context, rpcserver.CallInfo, []byte) (proto.Message, error) {
		if calls.Add(1) < 3 {
			return nil, &hadooprpc.RemoteError{Class: "org.apache.hadoop.hdds.scm.ha.RetriableWithNoFailoverException", Message: "leader not ready"}
		}
		return &scmpb.ScmContainerLocationResponse{CmdType: scmpb.Type_ListPipelines.Enum(),
			Status: scmpb.ScmContainerLocationResponse_OK.Enum(), ListPipelineResponse: &scmpb.ListPipelineResponseProto{}}, nil
	})
	other := startSCM(t, scmsim.Config{}) // would answer, but must not be asked
	c := newClient(t, fastOptions("hadoop", addr, other.Addr()))
	if _, err := c.ListPipelines(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || other.Requests() != 0 {
		t.Errorf("calls on first node %d (want 3), on other %d (want 0)", calls.Load(), other.Requests())
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, o := range []Options{
		{},
		{Addresses: []string{"no-port"}},
		{Addresses: []string{"h:1"}, RetryInterval: -1},
		{Addresses: []string{"h:1"}, MaxRetries: -2},
		{Addresses: []string{"h:1"}, RPCTimeout: -1},
		{Addresses: []string{"h:1"}, RPC: hadooprpc.Options{ClientID: []byte{1}}},
	} {
		if c, err := New(o); err == nil {
			c.Close()
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := newClient(t, fastOptions("x", "h:1")).GetContainer(testCtx(t), 1<<63); err == nil {
		t.Error("container id beyond int64 accepted")
	}
}
