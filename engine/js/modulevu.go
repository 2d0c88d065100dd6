package js

import (
	"context"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// moduleVU is the VU as modules see it (modules.VU). It is a distinct type so that the module
// API does not widen VU's own method set.
type moduleVU VU

var _ modules.VU = (*moduleVU)(nil)

func (vu *moduleVU) Runtime() *goja.Runtime            { return vu.rt }
func (vu *moduleVU) InitContext() bool                 { return vu.inInit }
func (vu *moduleVU) Context() context.Context          { return vu.ctx }
func (vu *moduleVU) ID() uint64                        { return vu.id }
func (vu *moduleVU) IDInTest() uint64                  { return vu.idInTest }
func (vu *moduleVU) Iteration() int64                  { return vu.iter }
func (vu *moduleVU) Tags() *modules.TagSet             { return vu.tags }
func (vu *moduleVU) Scenario() *execinfo.Scenario      { return vu.scenario }
func (vu *moduleVU) IterationInfo() execinfo.Iteration { return vu.iterInfo }
func (vu *moduleVU) Test() *modules.Test               { return vu.r.test }
func (vu *moduleVU) Push(s metrics.Sample)             { (*VU)(vu).push(s) }
func (vu *moduleVU) Reserve(n int) []metrics.Sample    { return (*VU)(vu).reserve(n) }
func (vu *moduleVU) AddData(sent, received int64)      { vu.sent += sent; vu.received += received }
func (vu *moduleVU) RegisterCallback() func(func() error) {
	return vu.loop.Reserve()
}
