package scm

import (
	"context"
	"fmt"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// LookupMode selects how LookupPipeline asks SCM.
type LookupMode int

const (
	// LookupFreon is the sequence of freon's DataNode echo test:
	// GetContainer, then ListPipelines, then the pipeline whose id is the
	// container's pipelineID.
	LookupFreon LookupMode = iota
	// LookupWithPipeline is one GetContainerWithPipeline call; SCM builds a
	// read pipeline from the replicas when the container is not OPEN.
	LookupWithPipeline
)

func (m LookupMode) String() string {
	switch m {
	case LookupFreon:
		return "freon"
	case LookupWithPipeline:
		return "with-pipeline"
	}
	return fmt.Sprintf("LookupMode(%d)", int(m))
}

// Lookup is a container and the pipeline echo should use for it.
type Lookup struct {
	Container *hddspb.ContainerInfoProto
	Pipeline  *hddspb.Pipeline
}

// LookupPipeline finds the pipeline of container id. A container without a
// usable pipeline gives an error matching ErrNoPipeline.
func (c *Client) LookupPipeline(ctx context.Context, id uint64, mode LookupMode) (*Lookup, error) {
	switch mode {
	case LookupFreon:
		return c.lookupFreon(ctx, id)
	case LookupWithPipeline:
		cwp, err := c.GetContainerWithPipeline(ctx, id)
		if err != nil {
			return nil, err
		}
		l := &Lookup{Container: cwp.GetContainerInfo(), Pipeline: cwp.GetPipeline()}
		if len(l.Pipeline.GetMembers()) == 0 {
			return nil, noPipeline(id, l.Container, "SCM returned a pipeline without members")
		}
		return l, nil
	}
	return nil, fmt.Errorf("scm: lookup container %d: unknown lookup mode %d", id, int(mode))
}

func (c *Client) lookupFreon(ctx context.Context, id uint64) (*Lookup, error) {
	info, err := c.GetContainer(ctx, id)
	if err != nil {
		return nil, err
	}
	want, ok := pipelineUUID(info.GetPipelineID())
	if !ok {
		return nil, noPipeline(id, info, "the container has no pipeline id")
	}
	pipelines, err := c.ListPipelines(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pipelines {
		if got, ok := pipelineUUID(p.GetId()); ok && got == want {
			if len(p.GetMembers()) == 0 {
				return nil, noPipeline(id, info, "its pipeline has no members")
			}
			return &Lookup{Container: info, Pipeline: p}, nil
		}
	}
	return nil, noPipeline(id, info, fmt.Sprintf("pipeline %s is not among the %d listed", hddspb.UUIDText(want), len(pipelines)))
}

func noPipeline(id uint64, info *hddspb.ContainerInfoProto, why string) error {
	return &noPipelineError{id: id, state: info.GetState().String(), why: why}
}

// pipelineUUID is the identity Java compares pipeline ids by: uuid128 when
// present, else the parsed id text (docs/ozone-scm.md#container-and-pipeline-messages).
func pipelineUUID(p *hddspb.PipelineID) ([16]byte, bool) { return hddspb.PipelineIDBytes(p) }
