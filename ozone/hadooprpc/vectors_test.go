package hadooprpc_test

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
	"github.com/dnecho/dnecho/proto/scmpb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
)

// The client's session bytes equal docs/hadoop-rpc.md#client-frames, and it decodes the
// docs/hadoop-rpc.md#server-frames replies.
func TestClientFramesMatchSpec(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	ctx := testCtx(t)

	var gc scmpb.ScmContainerLocationResponse
	done := asyncCall(ctx, c, wrapper(t, vec.WrapGetContainer), &gc)
	sc := rs.accept(t)
	expectBytes(t, sc, "preamble+context+GetContainer(1)",
		vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	sc.Write(vec.Bytes(vec.GetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	info := gc.GetGetContainerResponse().GetContainerInfo()
	if info.GetContainerID() != 1 || info.GetOwner() != "om1" || info.GetPipelineID().GetId() != "5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b" {
		t.Errorf("decoded GetContainer reply: %v", info)
	}

	var lp scmpb.ScmContainerLocationResponse
	done = asyncCall(ctx, c, wrapper(t, vec.WrapListPipelines), &lp)
	expectBytes(t, sc, "ListPipelines", vec.Bytes(vec.ListPipelines))
	body := new(scmpb.ScmContainerLocationResponse)
	if err := proto.Unmarshal(vec.Bytes(vec.ListBody), body); err != nil {
		t.Fatal(err)
	}
	sc.Write(mustFrame(t, wire.ResponseHeader(1, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), body))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	members := lp.GetListPipelineResponse().GetPipelines()[0].GetMembers()
	if len(members) != 1 || members[0].GetIpAddress() != "10.0.0.11" || members[0].GetPorts()[0].GetValue() != 9859 {
		t.Errorf("decoded ListPipelines reply: %v", members)
	}

	var tk scmpb.ScmContainerLocationResponse
	done = asyncCall(ctx, c, wrapper(t, vec.WrapGetContainerToken), &tk)
	expectBytes(t, sc, "GetContainerToken", vec.Bytes(vec.GetContainerToken))
	sc.Write(vec.Bytes(vec.EmptyTokenOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	if tok := tk.GetContainerTokenResponse().GetToken(); tok == nil || len(tok.GetIdentifier()) != 0 || tok.GetKind() != "" {
		t.Errorf("decoded empty token: %v", tok)
	}
}

func TestClientDecodesNotLeaderError(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	sc.Write(vec.Bytes(vec.ErrorNotLeader))
	err := waitCall(t, done)
	var re *hadooprpc.RemoteError
	if !errors.As(err, &re) || re.Class != vec.NotLeaderClass || re.Message != vec.NotLeaderMsg || re.Fatal || re.Detail != hadooprpc.ErrorApplication {
		t.Fatalf("err = %#v", err)
	}
	if !hadooprpc.IsRemoteClass(err, "ServerNotLeaderException") {
		t.Error("IsRemoteClass does not match the simple name")
	}
}

func TestClientPingFrame(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{PingInterval: 50 * time.Millisecond})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", vec.Bytes(vec.PreambleSimple, vec.Context, vec.GetContainer))
	expectBytes(t, sc, "first ping", vec.Bytes(vec.Ping))
	expectBytes(t, sc, "second ping", vec.Bytes(vec.Ping))
	sc.Write(vec.Bytes(vec.GetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestClientSASLNegotiateFrame(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), hadooprpc.Options{Authenticator: hadooprpc.SimpleFallback{}})
	done := asyncCall(testCtx(t), c, wrapper(t, vec.WrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "SASL preamble+NEGOTIATE", vec.Bytes(vec.PreambleSASL, vec.SASLNegotiate))
	sc.Write(vec.Bytes(vec.SASLSuccess))
	expectBytes(t, sc, "context+call", vec.Bytes(vec.Context, vec.GetContainer))
	sc.Write(vec.Bytes(vec.GetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
}
