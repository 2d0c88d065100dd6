package raftsim

import (
	"context"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Replica is one DataNode as a member of a Raft group: what the group needs from it to answer
// Echo. Its methods are called concurrently.
type Replica interface {
	// PeerID is the DataNode's uuid text, its Raft peer id.
	PeerID() string
	// Peer is the DataNode as a Raft peer with its current addresses (priority 0).
	Peer() *ratispb.RaftPeerProto
	// Query runs a read-only Echo on the leader: the gRPC path's dispatch, token check included
	// (Ozone: ContainerStateMachine.query).
	Query(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error)
	// StartTransaction is the leader's validation of a write before it is logged: token, and a
	// container the leader holds must be OPEN or RECOVERING. A rejection is returned as the
	// stateMachineException to reply with; nil accepts.
	StartTransaction(req *dnpb.ContainerCommandRequestProto) *ratispb.StateMachineExceptionProto
	// Apply runs a committed write on this replica (no token check; the container must exist).
	Apply(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error)
}
