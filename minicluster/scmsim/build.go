package scmsim

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// DefaultStandalonePort is the DataNode's STANDALONE (gRPC Xceiver) port.
const DefaultStandalonePort = 9859

// Datanode describes a pipeline member the way SCM reports it in
// ListPipelines (spec ozone-scm.md §17.3): uuid as text and as uuid128 and
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
func PipelineID(id string) (*hddspb.PipelineID, error) {
	u, err := uuidProto(id)
	if err != nil {
		return nil, err
	}
	return &hddspb.PipelineID{Id: &id, Uuid128: u}, nil
}

// NewUUID returns a random (version 4) UUID in text form.
func NewUUID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("%q is not a UUID", s)
	}
	if _, err := hex.Decode(u[:], []byte(s[:8]+s[9:13]+s[14:18]+s[19:23]+s[24:])); err != nil {
		return u, fmt.Errorf("%q is not a UUID: %v", s, err)
	}
	return u, nil
}

func formatUUID(u [16]byte) string {
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// uuidProto maps a UUID to hadoop.hdds.UUID: the two big-endian halves as
// signed int64 (spec §12.5).
func uuidProto(s string) (*hddspb.UUID, error) {
	u, err := parseUUID(s)
	if err != nil {
		return nil, err
	}
	msb, lsb := int64(binary.BigEndian.Uint64(u[:8])), int64(binary.BigEndian.Uint64(u[8:]))
	return &hddspb.UUID{MostSigBits: &msb, LeastSigBits: &lsb}, nil
}

// pipelineKey is the identity pipelines compare by: uuid128, else the id text.
func pipelineKey(p *hddspb.PipelineID) ([16]byte, bool) {
	var u [16]byte
	if p.GetUuid128() != nil {
		binary.BigEndian.PutUint64(u[:8], uint64(p.GetUuid128().GetMostSigBits()))
		binary.BigEndian.PutUint64(u[8:], uint64(p.GetUuid128().GetLeastSigBits()))
		return u, true
	}
	u, err := parseUUID(p.GetId())
	return u, err == nil
}
