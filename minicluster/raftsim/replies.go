package raftsim

import (
	"github.com/dnecho/dnecho/proto/ratispb"
)

// emptyStackTrace is the Java serialization of an empty StackTraceElement[] (55 bytes): a Java
// client deserializes the stacktrace of a stateMachineException or alreadyClosedException and
// fails on anything else, so the emulator sends this instead of a real trace.
var emptyStackTrace = []byte("\xac\xed\x00\x05ur\x00\x1e[Ljava.lang.StackTraceElement;\x02F*<<\xfd\x229\x02\x00\x00xp\x00\x00\x00\x00")

// peerLocked is m as a Raft peer, with priority 1 for the member SCM suggested as leader.
func (g *Group) peerLocked(m *member) *ratispb.RaftPeerProto {
	p := m.r.Peer()
	if m.idx == g.priority {
		p.Priority = 1
	}
	return p
}

// commitInfosLocked is what every reply carries: m first with its commit index, then the others
// with the index m knows of.
func (g *Group) commitInfosLocked(m *member) []*ratispb.CommitInfoProto {
	out := []*ratispb.CommitInfoProto{{Server: g.peerLocked(m), CommitIndex: min(g.commit, m.appended)}}
	for _, o := range g.members {
		if o != m {
			out = append(out, &ratispb.CommitInfoProto{Server: g.peerLocked(o), CommitIndex: min(g.commit, o.appended)})
		}
	}
	return out
}

// replyLocked starts a reply from m (success false, no exception) with commitInfos.
func (g *Group) replyLocked(m *member, client [16]byte, callID uint64, replyID []byte) *ratispb.RaftClientReplyProto {
	return &ratispb.RaftClientReplyProto{
		RpcReply: &ratispb.RaftRpcReplyProto{RequestorId: client[:], ReplyId: replyID,
			RaftGroupId: &ratispb.RaftGroupIdProto{Id: g.id[:]}, CallId: callID},
		CommitInfos: g.commitInfosLocked(m),
	}
}

// notLeaderLocked answers a request m cannot serve: it names the leader it knows (none when
// there is no leader) and every peer of the configuration (Ratis: RaftServerImpl.
// generateNotLeaderException).
func (g *Group) notLeaderLocked(m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto) *ratispb.RaftClientReplyProto {
	g.stats.notLeader++
	r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
	nl := &ratispb.NotLeaderExceptionProto{}
	if g.leader >= 0 && g.leader != m.idx {
		nl.SuggestedLeader = g.peerLocked(g.members[g.leader])
	}
	for _, o := range g.members {
		nl.PeersInConf = append(nl.PeersInConf, g.peerLocked(o))
	}
	r.ExceptionDetails = &ratispb.RaftClientReplyProto_NotLeaderException{NotLeaderException: nl}
	return r
}

// notReadyLocked answers from a leader that has not applied its election entry yet.
func (g *Group) notReadyLocked(m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto) *ratispb.RaftClientReplyProto {
	g.stats.notReady++
	r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
	r.ExceptionDetails = &ratispb.RaftClientReplyProto_LeaderNotReadyException{LeaderNotReadyException: &ratispb.LeaderNotReadyExceptionProto{
		ServerId: &ratispb.RaftGroupMemberIdProto{PeerId: []byte(m.r.PeerID()), GroupId: &ratispb.RaftGroupIdProto{Id: g.id[:]}}}}
	return r
}

// stateMachineException carries a Java exception class and message (and the empty trace).
func stateMachineException(class, msg string) *ratispb.StateMachineExceptionProto {
	return &ratispb.StateMachineExceptionProto{ExceptionClassName: class, ErrorMsg: msg, Stacktrace: emptyStackTrace}
}

func smeDetails(e *ratispb.StateMachineExceptionProto) *ratispb.RaftClientReplyProto_StateMachineException {
	return &ratispb.RaftClientReplyProto_StateMachineException{StateMachineException: e}
}

// alreadyClosed answers a request left behind a gap when the client half-closed the stream.
func alreadyClosed(st *orderedStream, req *ratispb.RaftClientRequestProto) *ratispb.RaftClientReplyProto {
	rpc := req.GetRpcRequest()
	return &ratispb.RaftClientReplyProto{
		RpcReply: &ratispb.RaftRpcReplyProto{RequestorId: rpc.GetRequestorId(), ReplyId: rpc.GetReplyId(),
			RaftGroupId: rpc.GetRaftGroupId(), CallId: rpc.GetCallId()},
		ExceptionDetails: &ratispb.RaftClientReplyProto_AlreadyClosedException{AlreadyClosedException: &ratispb.AlreadyClosedExceptionProto{
			ExceptionClassName: ratispb.ClassAlreadyClosed,
			ErrorMsg:           st.svc.peerID + ": The ordered stream is closed; request " + rpcString(rpc) + " will NEVER be processed",
			Stacktrace:         emptyStackTrace,
		}},
	}
}
