// Hand-written helpers beside the generated code: the wire facts of Echo over the Ratis client
// protocol that both the client (ozone/ratis) and the emulated DataNode (minicluster/raftsim,
// minicluster/dnsim) need. docs/ozone-ratis.md explains them.

package ratispb

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// Port names and defaults a DataNode publishes (Ozone: DatanodeDetails.Port.Name; the keys in
// hadoop-hdds/common/src/main/java/org/apache/hadoop/ozone/OzoneConfigKeys.java).
const (
	PortRatis       = "RATIS"        // hdds.container.ratis.ipc.port: the client service
	PortRatisAdmin  = "RATIS_ADMIN"  // hdds.container.ratis.admin.port
	PortRatisServer = "RATIS_SERVER" // hdds.container.ratis.server.port
	PortDataStream  = "RATIS_DATASTREAM"
	// DefaultPort is hdds.container.ratis.ipc.port's default, used when a member publishes
	// RATIS with port 0 (as the gRPC path uses its default for STANDALONE 0).
	DefaultPort = 9858
)

// TrailerExceptionType is the trailer naming the Java exception that ended a stream
// (Ratis: ratis-grpc/src/main/java/org/apache/ratis/grpc/GrpcUtil.java).
const TrailerExceptionType = "exception-type"

// Java class names on the wire: in stream-error trailers, in stateMachineException and in
// ThrowableProto (Ratis: ratis-common/src/main/java/org/apache/ratis/protocol/exceptions/;
// Ozone: hadoop-hdds/common/.../scm/container/common/helpers/).
const (
	ClassNotLeader           = "org.apache.ratis.protocol.exceptions.NotLeaderException"
	ClassLeaderNotReady      = "org.apache.ratis.protocol.exceptions.LeaderNotReadyException"
	ClassLeaderSteppingDown  = "org.apache.ratis.protocol.exceptions.LeaderSteppingDownException"
	ClassNotReplicated       = "org.apache.ratis.protocol.exceptions.NotReplicatedException"
	ClassAlreadyClosed       = "org.apache.ratis.protocol.exceptions.AlreadyClosedException"
	ClassGroupMismatch       = "org.apache.ratis.protocol.exceptions.GroupMismatchException"
	ClassResourceUnavailable = "org.apache.ratis.protocol.exceptions.ResourceUnavailableException"
	ClassStateMachine        = "org.apache.ratis.protocol.exceptions.StateMachineException"
	ClassContainerNotOpen    = "org.apache.hadoop.hdds.scm.container.common.helpers.ContainerNotOpenException"
	ClassStorageContainer    = "org.apache.hadoop.hdds.scm.container.common.helpers.StorageContainerException"
	// ClassInvalidProtocolBuffer is protobuf's parse exception as Ratis relocates it.
	ClassInvalidProtocolBuffer = "org.apache.ratis.thirdparty.com.google.protobuf.InvalidProtocolBufferException"
	ClassIllegalState          = "java.lang.IllegalStateException"
	ClassIllegalArgument       = "java.lang.IllegalArgumentException"
	ClassNullPointer           = "java.lang.NullPointerException"
	ClassIndexOutOfBounds      = "java.lang.IndexOutOfBoundsException"
)

// SimpleName is the class name after its package ("NotLeaderException"): the label of an
// outcome, as Java logs it.
func SimpleName(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }

// WrapEcho is the content of a request: the 4-byte big-endian length of the serialized Echo
// request, then the request, then no data (Ozone: hadoop-hdds/common/src/main/java/org/apache/
// hadoop/hdds/ratis/ContainerCommandRequestMessage.java).
func WrapEcho(header []byte) []byte {
	b := make([]byte, 4+len(header))
	binary.BigEndian.PutUint32(b, uint32(len(header)))
	copy(b[4:], header)
	return b
}

// ErrContent means a request's content is too short for its length prefix; a DataNode fails
// the stream with an index-out-of-bounds exception.
var ErrContent = errors.New("content shorter than its 4-byte length prefix says")

// UnwrapEcho returns the serialized request inside a request's content; data after it is
// ignored, as a DataNode ignores it for Echo.
func UnwrapEcho(content []byte) ([]byte, error) {
	if len(content) < 4 {
		return nil, ErrContent
	}
	n := int64(int32(binary.BigEndian.Uint32(content)))
	if n < 0 || n > int64(len(content)-4) {
		return nil, ErrContent
	}
	return content[4 : 4+n], nil
}

// LogID is the form Ratis logs an id in: the last 12 hex digits, upper case ("group-1C2D3E4F5A6B"
// with prefix "group-").
func LogID(prefix string, id []byte) string {
	h := strings.ToUpper(hex.EncodeToString(id))
	if len(h) > 12 {
		h = h[len(h)-12:]
	}
	return prefix + h
}

// GroupID is the Raft group of a pipeline: the 16 bytes of its UUID.
func GroupID(p *hddspb.Pipeline) ([16]byte, error) {
	u, ok := hddspb.PipelineIDBytes(p.GetId())
	if !ok {
		return u, fmt.Errorf("pipeline id %v is not a UUID", p.GetId())
	}
	return u, nil
}

// ErrNoRatisPort is returned by PeerOf for a member that publishes no RATIS port.
var ErrNoRatisPort = errors.New("no " + PortRatis + " port")

// PeerOf is a pipeline member as a Raft peer: its id (the DataNode uuid text) and its addresses,
// built as Ozone's client builds them (Ozone: hadoop-hdds/common/src/main/java/org/apache/
// hadoop/hdds/ratis/RatisHelper.java, toRaftPeer): clientAddress = host:RATIS, address =
// host:RATIS_SERVER, adminAddress = host:RATIS_ADMIN, dataStreamAddress = host:RATIS_DATASTREAM,
// each falling back to the RATIS port, and startupRole FOLLOWER. host is the hostName with
// useHostname, else the IP. A member without a RATIS port gives ErrNoRatisPort.
func PeerOf(m *hddspb.DatanodeDetailsProto, useHostname bool, priority uint32) (*RaftPeerProto, error) {
	id := hddspb.DatanodeUUID(m)
	if id == "" {
		return nil, errors.New("pipeline member without id, uuid128 or uuid")
	}
	host := m.GetIpAddress()
	if useHostname {
		host = m.GetHostName()
	}
	if host == "" {
		return nil, fmt.Errorf("datanode %s: no address (ipAddress %q, hostName %q)", id, m.GetIpAddress(), m.GetHostName())
	}
	ports := map[string]int{}
	for _, p := range m.GetPorts() {
		ports[strings.ToUpper(p.GetName())] = int(p.GetValue())
	}
	client, ok := ports[PortRatis]
	if !ok {
		return nil, fmt.Errorf("datanode %s (%s): %w", id, host, ErrNoRatisPort)
	}
	if client == 0 {
		client = DefaultPort
	}
	addr := func(name string) string {
		p, ok := ports[name]
		if !ok || p == 0 {
			p = client
		}
		return net.JoinHostPort(host, strconv.Itoa(p))
	}
	role := RaftPeerRole_FOLLOWER
	return &RaftPeerProto{
		Id:                []byte(id),
		Address:           addr(PortRatisServer),
		Priority:          priority,
		DataStreamAddress: addr(PortDataStream),
		ClientAddress:     net.JoinHostPort(host, strconv.Itoa(client)),
		AdminAddress:      addr(PortRatisAdmin),
		StartupRole:       &role,
	}, nil
}
