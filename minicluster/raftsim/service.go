package raftsim

import (
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/ratisgrpcpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Service is the RaftClientProtocolService of one DataNode: the Ratis server that hosts every
// group the DataNode is a member of, and routes each request by its group id.
type Service struct {
	ratisgrpcpb.UnimplementedRaftClientProtocolServiceServer
	peerID string

	mu     sync.Mutex
	groups map[[16]byte]*Group
}

// NewService returns the service of the DataNode with this peer id (its uuid text).
func NewService(peerID string) *Service {
	return &Service{peerID: peerID, groups: map[[16]byte]*Group{}}
}

// Join makes the DataNode serve g; it must be one of g's members.
func (s *Service) Join(g *Group) error {
	if g.memberOf(s.peerID) == nil {
		return fmt.Errorf("raftsim: %s is not a member of %s", s.peerID, g.LogID())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups[g.id] = g
	return nil
}

// Leave stops serving g.
func (s *Service) Leave(g *Group) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.groups, g.id)
}

func (s *Service) group(id []byte) (*Group, *member) {
	if len(id) != 16 {
		return nil, nil
	}
	s.mu.Lock()
	g := s.groups[[16]byte(id)]
	s.mu.Unlock()
	if g == nil {
		return nil, nil
	}
	return g, g.memberOf(s.peerID)
}

// Register adds the service to a gRPC server.
func (s *Service) Register(srv *grpc.Server) {
	ratisgrpcpb.RegisterRaftClientProtocolServiceServer(srv, s)
}

// Ordered serves one ordered stream (see orderedStream).
func (s *Service) Ordered(ss grpc.BidiStreamingServer[ratispb.RaftClientRequestProto, ratispb.RaftClientReplyProto]) error {
	return newOrderedStream(s, ss).run()
}

// Unordered is not emulated: Echo never uses it (the Java client sends only watch and
// unordered reads there).
func (s *Service) Unordered(grpc.BidiStreamingServer[ratispb.RaftClientRequestProto, ratispb.RaftClientReplyProto]) error {
	return status.Error(codes.Unimplemented, "raftsim: the unordered stream is not emulated (Echo uses ordered)")
}

// ServerOption makes a gRPC server send replies in Java's field order (ratispb's
// MarshalInOrder), so that the emulator's bytes are a real DataNode's.
func ServerOption() grpc.ServerOption { return grpc.ForceServerCodec(codec{}) }

// codec is the proto codec, except for replies.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if r, ok := v.(*ratispb.RaftClientReplyProto); ok {
		return r.MarshalInOrder()
	}
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("raftsim codec: %T is not a proto message", v)
	}
	return proto.Marshal(m)
}

func (codec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return errors.New("raftsim codec: not a proto message")
	}
	return proto.Unmarshal(b, m)
}

func (codec) Name() string { return "proto" }

var _ encoding.Codec = codec{}
