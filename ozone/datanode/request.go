package datanode

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Request is the content of an Echo call (ContainerProtocolCalls.echo).
type Request struct {
	// ContainerID is a container every targeted DataNode holds a replica of.
	ContainerID int64
	// Token is the encoded container token; sent only when not empty.
	Token string
	// Payload is sent to the DataNode, which ignores it. It is not copied:
	// do not modify it while the Prepared request is in use.
	Payload []byte
	// PayloadSizeResp is the size in bytes of the payload the DataNode
	// returns.
	PayloadSizeResp int32
	// SleepTimeMs makes the DataNode wait before answering.
	SleepTimeMs int32
	// ReadOnly marks the Echo read-only; freon forces it on without --ratis.
	ReadOnly bool
}

// clientVersion is the version the Java client stamps on every request
// (Ozone: ClientVersion.java, BUCKET_LAYOUT_SUPPORT = 3).
const clientVersion = 3

// Prepared is a Request encoded for one Client: one immutable request message
// per member, built once so the hot path neither builds nor copies anything.
// It is safe for concurrent use.
type Prepared struct {
	client *Client
	reqs   []*encoded // per member, in member order
}

// Prepare encodes r for this Client's members. For TargetFirst every member
// gets the first member's UUID as datanodeUuid, as Java does even on retry
// (docs/ozone-echo.md#member-order-and-address); with TargetAll or one
// DataNode each member gets its own UUID, so EC replicas accept the call.
func (c *Client) Prepare(r Request) (*Prepared, error) {
	p := &Prepared{client: c, reqs: make([]*encoded, len(c.members))}
	for i, m := range c.members {
		uuid := m.node.UUID
		if c.opts.Target == TargetFirst {
			uuid = c.members[0].node.UUID
		}
		if i > 0 && uuid == p.reqs[0].uuid {
			p.reqs[i] = p.reqs[0]
			continue
		}
		msg := NewEchoRequest(r, uuid)
		if size := proto.Size(msg); size > c.opts.MaxMessageSize {
			return nil, fmt.Errorf("datanode: echo request of %d bytes exceeds MaxMessageSize %d", size, c.opts.MaxMessageSize)
		}
		e, err := encode(msg)
		if err != nil {
			return nil, err
		}
		p.reqs[i] = e
	}
	return p, nil
}

// NewEchoRequest builds the Echo request exactly as the Java client sends it
// (docs/ozone-echo.md#building-the-request, vectors V1 and V4): traceID "" and every echo field set
// explicitly so that proto2 puts them on the wire, version 3, encodedToken
// only when non-empty. The Ratis path wraps the same message.
func NewEchoRequest(r Request, datanodeUUID string) *dnpb.ContainerCommandRequestProto {
	payload := r.Payload
	if payload == nil {
		payload = []byte{} // present and empty: "0a 00"
	}
	msg := &dnpb.ContainerCommandRequestProto{
		CmdType:      dnpb.Type_Echo.Enum(),       // Ozone: DatanodeClientProtocol.proto, field 1
		TraceID:      proto.String(""),            // field 2; "" with tracing off
		ContainerID:  proto.Int64(r.ContainerID),  // field 3
		DatanodeUuid: proto.String(datanodeUUID),  // field 4
		Version:      proto.Uint32(clientVersion), // field 24
		Echo: &dnpb.EchoRequestProto{ // field 26
			Payload:         payload,
			PayloadSizeResp: proto.Int32(r.PayloadSizeResp),
			SleepTimeMs:     proto.Int32(r.SleepTimeMs),
			ReadOnly:        proto.Bool(r.ReadOnly),
		},
	}
	if r.Token != "" {
		msg.EncodedToken = proto.String(r.Token) // field 23
	}
	return msg
}
