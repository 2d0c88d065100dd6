package scmsim

import (
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// Container describes a container to serve. Zero fields take defaults.
type Container struct {
	ID    uint64
	State hddspb.LifeCycleState // default OPEN
	// PipelineID is the pipeline's UUID text; "" for a container without one.
	PipelineID        string
	Owner             string                   // default "om1"
	ReplicationType   hddspb.ReplicationType   // default RATIS
	ReplicationFactor hddspb.ReplicationFactor // default ONE
	UsedBytes         uint64
	NumberOfKeys      uint64
	StateEnterTime    time.Time // default: when added
	// Replicas are the DataNodes holding the container, used to build the
	// read pipeline GetContainerWithPipeline returns when the container is
	// not OPEN or its pipeline is gone. Default: the pipeline's members.
	Replicas []*hddspb.DatanodeDetailsProto
}

// info renders the container as GetContainer returns it
// (docs/ozone-scm.md#container-and-pipeline-messages).
func (c Container) info() (*hddspb.ContainerInfoProto, error) {
	state, typ, factor := c.State, c.ReplicationType, c.ReplicationFactor
	if state == 0 {
		state = hddspb.LifeCycleState_OPEN
	}
	if typ == 0 {
		typ = hddspb.ReplicationType_RATIS
	}
	if factor == hddspb.ReplicationFactor_ZERO {
		factor = hddspb.ReplicationFactor_ONE
	}
	owner := c.Owner
	if owner == "" {
		owner = "om1"
	}
	enter := c.StateEnterTime
	if enter.IsZero() {
		enter = time.Now()
	}
	if c.ID > 1<<63-1 {
		return nil, fmt.Errorf("scmsim: container id %d exceeds int64", c.ID)
	}
	info := &hddspb.ContainerInfoProto{
		ContainerID:         proto.Int64(int64(c.ID)),
		State:               state.Enum(),
		UsedBytes:           &c.UsedBytes,
		NumberOfKeys:        &c.NumberOfKeys,
		StateEnterTime:      proto.Int64(enter.UnixMilli()),
		Owner:               &owner,
		DeleteTransactionId: proto.Int64(0),
		SequenceId:          proto.Int64(0),
		ReplicationType:     typ.Enum(),
	}
	if typ != hddspb.ReplicationType_EC {
		info.ReplicationFactor = factor.Enum()
	}
	if c.PipelineID != "" {
		pid, err := PipelineID(c.PipelineID)
		if err != nil {
			return nil, fmt.Errorf("scmsim: container %d: %w", c.ID, err)
		}
		info.PipelineID = pid
	}
	return info, nil
}

type containerEntry struct {
	info     *hddspb.ContainerInfoProto
	replicas []*hddspb.DatanodeDetailsProto
}

// state is what the SCMs of one cluster share (in real SCM HA, through Ratis).
type state struct {
	mu          sync.Mutex
	containers  map[uint64]containerEntry
	pipelines   []*hddspb.Pipeline
	leader      int  // index of the leader node; -1 for none
	leaderKnown bool // followers name the leader in their hint
	key         token.SecretKey
}

func newState(key token.SecretKey) *state {
	return &state{containers: map[uint64]containerEntry{}, leaderKnown: true, key: key}
}

func (st *state) addContainer(c Container) error {
	info, err := c.info()
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.containers[c.ID] = containerEntry{info: info, replicas: c.Replicas}
	return nil
}

func (st *state) addPipeline(p *hddspb.Pipeline) error {
	key, ok := pipelineKey(p.GetId())
	if !ok {
		return fmt.Errorf("scmsim: pipeline id %v is not a UUID", p.GetId())
	}
	p = proto.Clone(p).(*hddspb.Pipeline)
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, old := range st.pipelines {
		if k, _ := pipelineKey(old.GetId()); k == key {
			st.pipelines[i] = p
			return nil
		}
	}
	st.pipelines = append(st.pipelines, p)
	return nil
}

func (st *state) removePipeline(id string) error {
	u, err := hddspb.ParseUUIDText(id)
	if err != nil {
		return fmt.Errorf("scmsim: remove pipeline: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, p := range st.pipelines {
		if k, _ := pipelineKey(p.GetId()); k == u {
			st.pipelines = append(st.pipelines[:i], st.pipelines[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("scmsim: remove pipeline %s: not found", id)
}

// pipelineLocked finds a pipeline by id; st.mu must be held.
func (st *state) pipelineLocked(id *hddspb.PipelineID) *hddspb.Pipeline {
	want, ok := pipelineKey(id)
	if !ok {
		return nil
	}
	for _, p := range st.pipelines {
		if k, _ := pipelineKey(p.GetId()); k == want {
			return p
		}
	}
	return nil
}
