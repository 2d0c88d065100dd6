package ratispb_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/ratispb"
	rv "github.com/dnecho/dnecho/testsupport/ratisvectors"
)

// TestVectorsRoundTrip decodes every message vector of docs/ozone-ratis.md with the generated
// code, checks that no field is unknown (so every field number is declared) and that encoding
// gives the same bytes back (field order, packed repeated fields, proto3 defaults left out);
// replies go through MarshalInOrder, which the emulated DataNode sends with.
func TestVectorsRoundTrip(t *testing.T) {
	req := func() proto.Message { return &ratispb.RaftClientRequestProto{} }
	reply := func() proto.Message { return &ratispb.RaftClientReplyProto{} }
	peer := func() proto.Message { return &ratispb.RaftPeerProto{} }
	tests := []struct {
		name string
		hex  string
		msg  func() proto.Message
	}{
		{"R1", rv.R1Watch, req}, {"R2", rv.R2Write, req}, {"R3", rv.R3NextWrite, req}, {"R4", rv.R4Read, req},
		{"P1", rv.P1WatchReply, reply}, {"P2", rv.P2WriteReply, reply}, {"P3", rv.P3ReadReply, reply},
		{"P2C", rv.P2CWriteReplyCommitInfos, reply}, {"P5", rv.P5ReadNotFound, reply},
		{"NL", rv.NLNotLeader, reply}, {"LNR", rv.LNRLeaderNotReady, reply},
		{"SME", rv.SMEClosedContainer, reply}, {"SME-ST", rv.SMESTClosedContainerStackTrace, reply},
		{"AF", rv.AFApplyFailure, reply},
		{"PEER-DN1", rv.PeerDN1, peer}, {"PEER-DN2", rv.PeerDN2, peer}, {"PEER-DN3", rv.PeerDN3, peer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := rv.Bytes(tt.hex)
			m := tt.msg()
			if err := proto.Unmarshal(want, m); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if u := unknown(m.ProtoReflect()); u != "" {
				t.Fatalf("unknown fields in %s", u)
			}
			got, err := marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("re-encoded differently\n got %x\nwant %x", got, want)
			}
		})
	}
}

// TestVectorFields spot-checks decoded values where a wrong field number would still round-trip.
func TestVectorFields(t *testing.T) {
	var r3 ratispb.RaftClientRequestProto
	mustDecode(t, rv.R3NextWrite, &r3)
	rpc := r3.GetRpcRequest()
	if rpc.GetCallId() != 3 || !rpc.GetToLeader() || len(rpc.GetRepliedCallIds()) != 1 || rpc.GetRepliedCallIds()[0] != 2 ||
		rpc.GetSlidingWindowEntry().GetSeqNum() != 3 || rpc.GetSlidingWindowEntry().GetIsFirst() || r3.GetWrite() == nil {
		t.Errorf("R3 decodes as %v", &r3)
	}
	var r1 ratispb.RaftClientRequestProto
	mustDecode(t, rv.R1Watch, &r1)
	if r1.GetWatch() == nil || r1.GetMessage() != nil || !r1.GetRpcRequest().GetSlidingWindowEntry().GetIsFirst() ||
		string(r1.GetRpcRequest().GetReplyId()) != rv.DN2 {
		t.Errorf("R1 decodes as %v", &r1)
	}
	var p2c ratispb.RaftClientReplyProto
	mustDecode(t, rv.P2CWriteReplyCommitInfos, &p2c)
	if !p2c.GetRpcReply().GetSuccess() || p2c.GetLogIndex() != 11 || len(p2c.GetCommitInfos()) != 3 ||
		p2c.GetCommitInfos()[2].GetCommitIndex() != 10 || p2c.GetCommitInfos()[0].GetServer().GetPriority() != 1 {
		t.Errorf("P2C decodes as %v", &p2c)
	}
	var nl ratispb.RaftClientReplyProto
	mustDecode(t, rv.NLNotLeader, &nl)
	ex := nl.GetNotLeaderException()
	if nl.GetRpcReply().GetSuccess() || string(ex.GetSuggestedLeader().GetId()) != rv.DN2 || len(ex.GetPeersInConf()) != 3 ||
		ex.GetSuggestedLeader().GetClientAddress() != "10.0.0.2:9858" || ex.GetSuggestedLeader().GetStartupRole() != ratispb.RaftPeerRole_FOLLOWER {
		t.Errorf("NL decodes as %v", &nl)
	}
	var lnr ratispb.RaftClientReplyProto
	mustDecode(t, rv.LNRLeaderNotReady, &lnr)
	if string(lnr.GetLeaderNotReadyException().GetServerId().GetPeerId()) != rv.DN2 {
		t.Errorf("LNR decodes as %v", &lnr)
	}
	var af ratispb.RaftClientReplyProto
	mustDecode(t, rv.AFApplyFailure, &af)
	if af.GetStateMachineException().GetExceptionClassName() != rv.StorageContainer || af.GetLogIndex() != 12 {
		t.Errorf("AF decodes as %v", &af)
	}
	var smest ratispb.RaftClientReplyProto
	mustDecode(t, rv.SMESTClosedContainerStackTrace, &smest)
	if !bytes.Equal(smest.GetStateMachineException().GetStacktrace(), rv.Bytes(rv.STEmptyStackTrace)) {
		t.Errorf("SME-ST stacktrace %x", smest.GetStateMachineException().GetStacktrace())
	}
}

// TestUnpackedRepliedCallIds: a parser must accept the unpacked form of a repeated scalar too.
func TestUnpackedRepliedCallIds(t *testing.T) {
	// rpcRequest{ repliedCallIds: 2 (unpacked, tag 0x60), 3 (unpacked) }
	b := []byte{0x0a, 0x04, 0x60, 0x02, 0x60, 0x03}
	var r ratispb.RaftClientRequestProto
	if err := proto.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if got := r.GetRpcRequest().GetRepliedCallIds(); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("repliedCallIds %v", got)
	}
}

// marshal encodes replies in Java's field order (see MarshalInOrder), other messages as usual.
func marshal(m proto.Message) ([]byte, error) {
	if r, ok := m.(*ratispb.RaftClientReplyProto); ok {
		return r.MarshalInOrder()
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

func mustDecode(t *testing.T, hex string, m proto.Message) {
	t.Helper()
	if err := proto.Unmarshal(rv.Bytes(hex), m); err != nil {
		t.Fatal(err)
	}
}
