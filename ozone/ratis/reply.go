package ratis

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// verdict is what a reply means for the call it answers and for the stream it came on.
type verdict struct {
	// retry is the failure class when the reply fails the stream (NotLeader, LeaderNotReady,
	// a stepping-down leader); then the request is resent, or the policy gives up.
	retry failure
	// resend is true when retry is set.
	resend bool
	// suggested and peers come with NotLeader.
	suggested *ratispb.RaftPeerProto
	peers     []*ratispb.RaftPeerProto
	// resp is the Ozone response of a successful Echo (nil for a watch).
	resp *dnpb.ContainerCommandResponseProto
	// err ends the call (a Raft exception, or content that does not parse).
	err *Error
}

// judge interprets a reply the way Ozone's client does (Ozone: XceiverClientRatis.
// sendRequestAsync; Ratis: RaftClientImpl.handleRaftException): an exception first, else the
// message content parsed as the Ozone response (none for a watch).
func judge(r *ratispb.RaftClientReplyProto, watch bool) verdict {
	switch ex := r.GetExceptionDetails().(type) {
	case *ratispb.RaftClientReplyProto_NotLeaderException:
		return verdict{retry: failNotLeader, resend: true, suggested: ex.NotLeaderException.GetSuggestedLeader(),
			peers: ex.NotLeaderException.GetPeersInConf()}
	case *ratispb.RaftClientReplyProto_LeaderNotReadyException:
		return verdict{retry: failNotReady, resend: true}
	case *ratispb.RaftClientReplyProto_LeaderSteppingDownException:
		return verdict{retry: failIO, resend: true}
	case *ratispb.RaftClientReplyProto_StateMachineException:
		e := ex.StateMachineException
		return verdict{err: &Error{Class: e.GetExceptionClassName(), Message: e.GetErrorMsg(), LogIndex: r.GetLogIndex()}}
	case *ratispb.RaftClientReplyProto_AlreadyClosedException:
		e := ex.AlreadyClosedException
		return verdict{err: &Error{Class: orDefault(e.GetExceptionClassName(), ratispb.ClassAlreadyClosed), Message: e.GetErrorMsg()}}
	case *ratispb.RaftClientReplyProto_NotReplicatedException:
		return verdict{err: &Error{Class: ratispb.ClassNotReplicated, Message: fmt.Sprintf("call %d not replicated at log index %d",
			ex.NotReplicatedException.GetCallId(), ex.NotReplicatedException.GetLogIndex())}}
	case nil:
	default:
		return verdict{err: &Error{Class: throwableClass(r), Message: throwableMessage(r)}}
	}
	if !r.GetRpcReply().GetSuccess() {
		return verdict{err: &Error{Class: ratispb.ClassStateMachine, Message: "reply without success and without an exception"}}
	}
	if watch {
		return verdict{}
	}
	resp := new(dnpb.ContainerCommandResponseProto)
	if err := proto.Unmarshal(r.GetMessage().GetContent(), resp); err != nil {
		return verdict{err: &Error{Class: ratispb.ClassInvalidProtocolBuffer, Message: "reply content is not an Ozone response: " + err.Error()}}
	}
	return verdict{resp: resp}
}

// throwableClass and throwableMessage read the ThrowableProto exceptions (data stream,
// transfer leadership, read, read index), which Echo does not expect.
func throwableClass(r *ratispb.RaftClientReplyProto) string {
	t := throwable(r)
	return orDefault(t.GetClassName(), "org.apache.ratis.protocol.exceptions.RaftException")
}

func throwableMessage(r *ratispb.RaftClientReplyProto) string { return throwable(r).GetErrorMessage() }

func throwable(r *ratispb.RaftClientReplyProto) *ratispb.ThrowableProto {
	switch ex := r.GetExceptionDetails().(type) {
	case *ratispb.RaftClientReplyProto_DataStreamException:
		return ex.DataStreamException
	case *ratispb.RaftClientReplyProto_TransferLeadershipException:
		return ex.TransferLeadershipException
	case *ratispb.RaftClientReplyProto_ReadException:
		return ex.ReadException
	case *ratispb.RaftClientReplyProto_ReadIndexException:
		return ex.ReadIndexException
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
