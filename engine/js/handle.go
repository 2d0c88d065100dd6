package js

import (
	"context"

	"github.com/dnecho/dnecho/engine/exec"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// vuHandle is the VU as modules see it (modules.VU). It is a distinct type so that the module
// API does not widen VU's own method set.
type vuHandle VU

var _ modules.VU = (*vuHandle)(nil)

func (h *vuHandle) Runtime() *goja.Runtime         { return h.rt }
func (h *vuHandle) InitContext() bool              { return h.inInit }
func (h *vuHandle) Context() context.Context       { return h.ctx }
func (h *vuHandle) ID() uint64                     { return h.id }
func (h *vuHandle) IDInTest() uint64               { return h.idInTest }
func (h *vuHandle) Iteration() int64               { return h.iter }
func (h *vuHandle) Tags() *modules.TagSet          { return h.tags }
func (h *vuHandle) Scenario() *exec.Scenario       { return h.scenario }
func (h *vuHandle) IterationInfo() exec.Iteration  { return h.iterInfo }
func (h *vuHandle) Test() *modules.Test            { return h.r.test }
func (h *vuHandle) Push(s metrics.Sample)          { (*VU)(h).push(s) }
func (h *vuHandle) Reserve(n int) []metrics.Sample { return (*VU)(h).reserve(n) }
func (h *vuHandle) AddData(sent, received int64)   { h.sent += sent; h.received += received }
func (h *vuHandle) RegisterCallback() func(func() error) {
	return h.loop.Reserve()
}
