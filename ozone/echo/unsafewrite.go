package echo

import (
	"fmt"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// UnsafeWriteError refuses Ratis writes to a container SCM does not list as OPEN on the
// pipeline they would go to. A write Echo is applied on every replica without the leader
// checking that each holds the container; on a replica that lacks it the apply fails, and the
// DataNode then marks its state machine unhealthy and asks SCM to close the pipeline
// (docs/ozone-ratis.md#dangerous-cases). Spec.UnsafeWrite overrides the check.
type UnsafeWriteError struct {
	Container int64
	// Reason says what SCM lists instead.
	Reason string
}

func (e *UnsafeWriteError) Error() string {
	return fmt.Sprintf("refusing write-mode Echo through Ratis to container %d: %s. A write is applied on every "+
		"replica, and one that fails on a replica closes the pipeline on a real cluster; use read-only mode, "+
		"an OPEN container, or the unsafe-write override", e.Container, e.Reason)
}

// checkWrite allows writes when SCM lists the container OPEN and on the pipeline that was found.
func checkWrite(t *Placement) error {
	c := t.Container
	e := &UnsafeWriteError{Container: c.GetContainerID()}
	pid, ok := hddspb.PipelineIDBytes(c.GetPipelineID())
	found, _ := hddspb.PipelineIDBytes(t.Pipeline.GetId())
	switch {
	case c.GetState() != hddspb.LifeCycleState_OPEN:
		e.Reason = fmt.Sprintf("SCM lists it as %s, not OPEN", c.GetState())
	case !ok:
		e.Reason = "SCM lists it on no pipeline"
	case pid != found:
		e.Reason = fmt.Sprintf("SCM lists it on pipeline %s, not on %s", hddspb.UUIDText(pid), hddspb.UUIDText(found))
	case t.Pipeline.GetState() != hddspb.PipelineState_PIPELINE_OPEN:
		e.Reason = fmt.Sprintf("its pipeline %s is %s, not OPEN", hddspb.UUIDText(found), t.Pipeline.GetState())
	default:
		return nil
	}
	return e
}
