package js

import "context"

// watch is the VU's registration to be interrupted when a context ends.
type watch struct {
	done  <-chan struct{}
	stop  func() bool
	fired chan struct{}
}

// arm makes ctx the VU's current context and arranges for the runtime to be interrupted when ctx
// ends, so that a busy loop stops at its next instruction.
//
// The registration is kept while the VU keeps getting the same context (the scheduler passes
// one per activation), so a steady iteration loop pays nothing for it. goja clears an interrupt
// that stopped a call; one that arrives after a call finished stays set, which makes the next
// call with that (ended) context stop at once, as it should. Re-arming for another context
// clears it.
func (vu *VU) arm(ctx context.Context) {
	vu.ctx = ctx
	done := ctx.Done()
	if done == vu.watch.done && done != nil {
		return
	}
	vu.disarm()
	vu.ctx = ctx
	if done == nil {
		return
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		vu.rt.Interrupt(errInterrupted)
	})
	vu.watch = watch{done: done, stop: stop, fired: fired}
}

// disarm drops the registration and any pending interrupt. It must run before the VU is used
// with another context, and when a VU is discarded so that the context does not keep it alive.
func (vu *VU) disarm() {
	if vu.watch.stop != nil && !vu.watch.stop() {
		// The interrupt is being (or was) delivered: wait so that clearing it below cannot race
		// with a late Interrupt call.
		<-vu.watch.fired
	}
	vu.watch = watch{}
	vu.rt.ClearInterrupt()
	vu.ctx = context.Background()
}
