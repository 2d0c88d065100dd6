package scmsim

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// DefaultStandalonePort is the DataNode's STANDALONE (gRPC Xceiver) port.
const DefaultStandalonePort = 9859

// Datanode describes a pipeline member the way SCM reports it in
// ListPipelines (docs/hadoop-rpc.md#server-frames): uuid as text and as uuid128 and
// id, the STANDALONE port, networkName = uuid, rack /default-rack, IN_SERVICE.
func Datanode(uuid, ip, host string, standalonePort uint32) (*hddspb.DatanodeDetailsProto, error) {
	u, err := uuidProto(uuid)
	if err != nil {
		return nil, fmt.Errorf("scmsim: datanode %s: %w", host, err)
	}
	return &hddspb.DatanodeDetailsProto{
		Uuid:                   &uuid,
		IpAddress:              &ip,
		HostName:               &host,
		Ports:                  []*hddspb.Port{{Name: proto.String("STANDALONE"), Value: &standalonePort}},
		NetworkName:            &uuid,
		NetworkLocation:        proto.String("/default-rack"),
		PersistedOpState:       hddspb.NodeOperationalState_IN_SERVICE.Enum(),
		PersistedOpStateExpiry: proto.Int64(0),
		Uuid128:                u,
		Id:                     &hddspb.DatanodeIDProto{Uuid: proto.Clone(u).(*hddspb.UUID)},
	}, nil
}

// Pipeline builds a RATIS pipeline (factor ONE for one member, THREE
// otherwise) as ListPipelines reports it: id as text and uuid128, leaderID
// "", creation time now, replica index 0 per member.
func Pipeline(id string, state hddspb.PipelineState, members ...*hddspb.DatanodeDetailsProto) (*hddspb.Pipeline, error) {
	pid, err := PipelineID(id)
	if err != nil {
		return nil, fmt.Errorf("scmsim: pipeline: %w", err)
	}
	factor := hddspb.ReplicationFactor_THREE
	if len(members) == 1 {
		factor = hddspb.ReplicationFactor_ONE
	}
	return &hddspb.Pipeline{
		Members:              members,
		State:                state.Enum(),
		Type:                 hddspb.ReplicationType_RATIS.Enum(),
		Factor:               factor.Enum(),
		Id:                   pid,
		LeaderID:             proto.String(""),
		CreationTimeStamp:    proto.Uint64(uint64(time.Now().UnixMilli())),
		MemberReplicaIndexes: make([]uint32, len(members)),
	}, nil
}

// PipelineID returns the PipelineID of a UUID text with both id and uuid128 set.
func PipelineID(id string) (*hddspb.PipelineID, error) { return hddspb.NewPipelineID(id) }

// NewUUID returns a random (version 4) UUID in text form.
func NewUUID() string { return hddspb.UUIDText(hddspb.NewRandomUUID()) }

// uuidProto maps a UUID text to hadoop.hdds.UUID.
func uuidProto(s string) (*hddspb.UUID, error) {
	u, err := hddspb.ParseUUIDText(s)
	if err != nil {
		return nil, err
	}
	return hddspb.UUIDFromBytes(u), nil
}

// pipelineKey is the identity pipelines compare by: uuid128, else the id text.
func pipelineKey(p *hddspb.PipelineID) ([16]byte, bool) { return hddspb.PipelineIDBytes(p) }
