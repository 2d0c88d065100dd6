package dnsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Faults describes misbehaviour injected before a request is dispatched. The
// zero value injects nothing. Faults can be replaced at any time with
// SetFaults, from any goroutine.
type Faults struct {
	// Latency is added to every call before dispatch.
	Latency time.Duration
	// Jitter adds a further uniformly random delay in [0, Jitter).
	Jitter time.Duration

	// ErrorRate is the fraction (0–1) of calls answered with ErrorResult
	// instead of being dispatched.
	ErrorRate float64
	// ErrorResult is the Ozone result of an injected error; default
	// CONTAINER_INTERNAL_ERROR. SUCCESS is not allowed.
	ErrorResult dnpb.Result
	// ErrorMessage is the message of an injected error; default
	// "dnsim: injected fault".
	ErrorMessage string
	// ErrorCode, when not codes.OK, makes an injected error end the stream
	// with this gRPC status (and ErrorMessage) instead of an Ozone result,
	// e.g. codes.Unauthenticated.
	ErrorCode codes.Code

	// Stall holds every call until the faults are replaced by the next
	// SetFaults, the stream ends, or StallFor elapses (when > 0).
	Stall    bool
	StallFor time.Duration

	// EndDelay holds the stream this long after each response before
	// reading on, so a half-closed stream ends late: the time between a
	// response and the end of its stream, which a latency measurement must
	// not include (Java's timer stops at the response).
	EndDelay time.Duration
}

// DefaultFaultMessage is the message of an injected error without ErrorMessage.
const DefaultFaultMessage = "dnsim: injected fault"

func (f Faults) validate() error {
	switch {
	case f.Latency < 0 || f.Jitter < 0 || f.StallFor < 0 || f.EndDelay < 0:
		return fmt.Errorf("dnsim faults: Latency, Jitter, StallFor and EndDelay must be >= 0")
	case f.ErrorRate < 0 || f.ErrorRate > 1 || f.ErrorRate != f.ErrorRate:
		return fmt.Errorf("dnsim faults: ErrorRate %v must be within [0, 1]", f.ErrorRate)
	case f.ErrorResult == dnpb.Result_SUCCESS:
		return fmt.Errorf("dnsim faults: ErrorResult must be an error result, not SUCCESS")
	case f.ErrorResult != 0 && dnpb.Result_name[int32(f.ErrorResult)] == "":
		return fmt.Errorf("dnsim faults: ErrorResult %d is not an Ozone result", f.ErrorResult)
	}
	return nil
}

// faultState is one immutable generation of Faults. released is closed when
// the next generation replaces it, which frees calls held by Stall.
type faultState struct {
	Faults
	released chan struct{}
}

// SetFaults replaces the injected faults; calls held by a previous Stall are
// released and continue to dispatch.
func (d *DataNode) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return err
	}
	if f.ErrorResult == 0 {
		f.ErrorResult = dnpb.Result_CONTAINER_INTERNAL_ERROR
	}
	if f.ErrorMessage == "" {
		f.ErrorMessage = DefaultFaultMessage
	}
	old := d.faults.Swap(&faultState{Faults: f, released: make(chan struct{})})
	if old != nil {
		close(old.released)
	}
	return nil
}

// Faults returns the faults in force.
func (d *DataNode) Faults() Faults {
	return d.faults.Load().Faults
}

// inject applies the current faults to one call. It returns a response to send
// instead of dispatching, an error to end the stream with, or (nil, nil) to
// dispatch normally.
func (d *DataNode) inject(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	f := d.faults.Load()
	if delay := f.Latency + jitter(f.Jitter); delay > 0 {
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
	if f.Stall {
		if err := d.hold(ctx, f); err != nil {
			return nil, err
		}
	}
	if f.ErrorRate > 0 && rand.Float64() < f.ErrorRate {
		d.stats.injected.Add(1)
		if f.ErrorCode != codes.OK {
			return nil, status.Error(f.ErrorCode, f.ErrorMessage)
		}
		return failure(req, f.ErrorResult, f.ErrorMessage), nil
	}
	return nil, nil
}

func jitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return rand.N(max)
}

// hold blocks a call while the stall of generation f lasts.
func (d *DataNode) hold(ctx context.Context, f *faultState) error {
	d.stats.stalled.Add(1)
	defer d.stats.stalled.Add(-1)
	var timeout <-chan time.Time
	if f.StallFor > 0 {
		t := time.NewTimer(f.StallFor)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-f.released:
	case <-timeout:
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
	return nil
}
