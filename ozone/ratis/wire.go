package ratis

import (
	"errors"
	"fmt"

	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratisgrpcpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// OrderedMethod is the one method Echo uses (Ratis: ratis-proto/src/main/proto/Grpc.proto,
// RaftClientProtocolService.ordered), a bidirectional stream with no deadline.
const OrderedMethod = ratisgrpcpb.RaftClientProtocolService_Ordered_FullMethodName

// MissingPortError is a pipeline member that publishes no RATIS port: the Java client fails on
// it with a NullPointerException (DatanodeDetails.getPort(RATIS) is null).
type MissingPortError struct {
	DataNode string // uuid
	Host     string
}

func (e *MissingPortError) Error() string {
	return fmt.Sprintf("datanode %s (%s) publishes no %s port, so Echo cannot go through Ratis to it "+
		"(a DataNode without Ratis, or an SCM that does not list the Ratis ports); use the gRPC transport", e.DataNode, e.Host, ratispb.PortRatis)
}

// peerOf is ratispb.PeerOf with a *MissingPortError for a member without a RATIS port.
func peerOf(m *hddspb.DatanodeDetailsProto, useHostname bool) (*ratispb.RaftPeerProto, error) {
	p, err := ratispb.PeerOf(m, useHostname, 0)
	if errors.Is(err, ratispb.ErrNoRatisPort) {
		host := m.GetIpAddress()
		if useHostname {
			host = m.GetHostName()
		}
		return nil, &MissingPortError{DataNode: hddspb.DatanodeUUID(m), Host: host}
	}
	return p, err
}
