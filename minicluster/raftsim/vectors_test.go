package raftsim

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
	rv "github.com/dnecho/dnecho/testsupport/ratisvectors"
)

// vecReplica is a member with the ids and addresses of the docs/ozone-ratis.md vectors
// (DNn on 10.0.0.n with the default ports); its Echo answers with an empty payload, or
// CONTAINER_NOT_FOUND for container 7.
type vecReplica struct {
	id, ip string
	sme    *ratispb.StateMachineExceptionProto
}

func (v vecReplica) PeerID() string { return v.id }

func (v vecReplica) Peer() *ratispb.RaftPeerProto {
	role := ratispb.RaftPeerRole_FOLLOWER
	addr := func(port int) string { return fmt.Sprintf("%s:%d", v.ip, port) }
	return &ratispb.RaftPeerProto{Id: []byte(v.id), Address: addr(rv.ServerPort), DataStreamAddress: addr(rv.ClientPort),
		ClientAddress: addr(rv.ClientPort), AdminAddress: addr(rv.AdminPort), StartupRole: &role}
}

func (v vecReplica) Query(_ context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	return v.Apply(context.Background(), req)
}

func (v vecReplica) StartTransaction(*dnpb.ContainerCommandRequestProto) *ratispb.StateMachineExceptionProto {
	return v.sme
}

func (v vecReplica) Apply(_ context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	if req.GetContainerID() == 7 {
		return &dnpb.ContainerCommandResponseProto{CmdType: dnpb.Type_Echo.Enum(), TraceID: proto.String(""),
			Result: dnpb.Result_CONTAINER_NOT_FOUND.Enum(), Message: proto.String("ContainerID 7 does not exist")}, nil
	}
	return &dnpb.ContainerCommandResponseProto{CmdType: dnpb.Type_Echo.Enum(), TraceID: proto.String(""),
		Result: dnpb.Result_SUCCESS.Enum(), Echo: &dnpb.EchoResponseProto{Payload: []byte{}}}, nil
}

// vecGroup is the vectors' pipeline: DN1, DN2 (leader, priority 1), DN3.
func vecGroup(t *testing.T, sme *ratispb.StateMachineExceptionProto) *Group {
	t.Helper()
	g, err := NewGroup(rv.PipelineID, []Replica{
		vecReplica{id: rv.DN1, ip: "10.0.0.1"}, vecReplica{id: rv.DN2, ip: "10.0.0.2", sme: sme}, vecReplica{id: rv.DN3, ip: "10.0.0.3"},
	}, GroupOptions{Leader: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g
}

// vecRequest is R2 (or R4 with read) addressed to the given DataNode.
func vecRequest(t *testing.T, hex string, to string) (*ratispb.RaftRpcRequestProto, [16]byte, *dnpb.ContainerCommandRequestProto) {
	t.Helper()
	var r ratispb.RaftClientRequestProto
	if err := proto.Unmarshal(rv.Bytes(hex), &r); err != nil {
		t.Fatal(err)
	}
	r.RpcRequest.ReplyId = []byte(to)
	h := new(dnpb.ContainerCommandRequestProto)
	if err := proto.Unmarshal(r.GetMessage().GetContent()[4:], h); err != nil {
		t.Fatal(err)
	}
	return r.RpcRequest, [16]byte(r.RpcRequest.RequestorId), h
}

func sameBytes(t *testing.T, name string, r *ratispb.RaftClientReplyProto, hex string) {
	t.Helper()
	got, err := r.MarshalInOrder()
	if err != nil {
		t.Fatal(err)
	}
	if want := rv.Bytes(hex); !bytes.Equal(got, want) {
		t.Errorf("%s differs from the vector\n got %x\nwant %x", name, got, want)
	}
}

// TestReplyVectors builds the emulator's replies for the vectors' situations and compares them
// byte for byte ("min" vectors leave commitInfos out, so they are dropped before comparing).
func TestReplyVectors(t *testing.T) {
	g := vecGroup(t, nil)
	dn1, dn2 := g.members[0], g.members[1]

	rpc, client, _ := vecRequest(t, rv.R2Write, rv.DN1)
	g.mu.Lock()
	nl := g.notLeaderLocked(dn1, client, rpc)
	g.mu.Unlock()
	nl.CommitInfos = nil
	sameBytes(t, "NL", nl, rv.NLNotLeader)

	rpc, client, _ = vecRequest(t, rv.R2Write, rv.DN2)
	g.mu.Lock()
	lnr := g.notReadyLocked(dn2, client, rpc)
	g.mu.Unlock()
	lnr.CommitInfos = nil
	sameBytes(t, "LNR", lnr, rv.LNRLeaderNotReady)

	r, err := g.read(context.Background(), dn2, client, rpc, &dnpb.ContainerCommandRequestProto{ContainerID: proto.Int64(7)})
	if err != nil {
		t.Fatal(err)
	}
	r.CommitInfos = nil
	sameBytes(t, "P5", r, rv.P5ReadNotFound)
}

// TestWriteVectors runs writes through the log of the vectors' group, at the vectors' log
// indexes: success with commitInfos (P2C), a leader rejection (SME-ST) and an apply failure (AF).
func TestWriteVectors(t *testing.T) {
	g := vecGroup(t, nil)
	g.mu.Lock()
	g.last, g.commit = 10, 10
	for _, m := range g.members {
		m.appended, m.applyNext = 10, 11
	}
	g.mu.Unlock()
	dn2 := g.members[1]
	// DN3 holds entry 11 only once the test lets it, so its commit index stays 10 as in P2C.
	if err := g.SetDelay(2, 1<<62); err != nil {
		t.Fatal(err)
	}
	rpc, client, h := vecRequest(t, rv.R2Write, rv.DN2)
	tk := g.write(dn2, client, rpc, h)
	if tk.wait == nil {
		t.Fatalf("write not logged: %v", tk)
	}
	<-tk.wait.done
	sameBytes(t, "P2C", tk.wait.reply, rv.P2CWriteReplyCommitInfos)

	h7 := proto.Clone(h).(*dnpb.ContainerCommandRequestProto)
	h7.ContainerID = proto.Int64(7)
	rpc.CallId = 2
	tk = g.write(dn2, [16]byte{1}, rpc, h7) // another client: not a retry of call 2
	<-tk.wait.done
	r := tk.wait.reply
	r.CommitInfos = nil // "min": no commitInfos and no stacktrace
	r.GetStateMachineException().Stacktrace = nil
	r.RpcReply.RequestorId = client[:]
	sameBytes(t, "AF", r, rv.AFApplyFailure)
	if g.Stats().Failed == "" {
		t.Error("an apply failure did not fail the pipeline")
	}

	sme := vecGroup(t, stateMachineException(rv.ContainerNotOpen, "Container 1 in CLOSED state"))
	tk = sme.write(sme.members[1], client, rpc, h)
	tk.reply.CommitInfos = nil
	sameBytes(t, "SME-ST", tk.reply, rv.SMESTClosedContainerStackTrace)
	if !bytes.Equal(emptyStackTrace, rv.Bytes(rv.STEmptyStackTrace)) {
		t.Error("emptyStackTrace differs from vector ST")
	}
}
