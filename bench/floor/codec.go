package floor

import (
	"fmt"

	"google.golang.org/grpc/mem"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Codec is a grpc-go CodecV2 for the Echo method only: Marshal hands a *Request's bytes to
// grpc-go as they are, Unmarshal checks a reply into a *Reply without building a message.
// Install it per channel with grpc.WithDefaultCallOptions(grpc.ForceCodecV2(Codec{})).
type Codec struct{}

// Name is empty so that grpc-go keeps the content-type "application/grpc" that its proto codec
// and the Java client send; any other name is appended as "application/grpc+name".
func (Codec) Name() string { return "" }

// Marshal returns the pre-encoded bytes of v, a *Request.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*Request)
	if !ok {
		return nil, fmt.Errorf("floor: codec cannot marshal %T, only *floor.Request", v)
	}
	return r.bufs, nil
}

// Unmarshal checks data, an encoded reply, into v, a *Reply.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*Reply)
	if !ok {
		return fmt.Errorf("floor: codec cannot unmarshal into %T, only *floor.Reply", v)
	}
	b := r.contiguous(data)
	res, err := CheckReply(b)
	r.Result, r.Size = res, len(b)
	return err
}

// Reply is the outcome of one received reply. Reuse one per goroutine: receiving into it does not
// allocate once its scratch space has grown to the largest reply split over several buffers.
type Reply struct {
	// Result is the reply's result field.
	Result dnpb.Result
	// Size is the reply's encoded size in bytes.
	Size int

	scratch []byte
}

// contiguous returns data as one slice: the buffer itself when grpc-go delivered the reply in one
// piece (small replies always are), else a copy in r's scratch space.
func (r *Reply) contiguous(data mem.BufferSlice) []byte {
	switch len(data) {
	case 0:
		return nil
	case 1:
		return data[0].ReadOnlyData()
	}
	r.scratch = r.scratch[:0]
	for _, buf := range data {
		r.scratch = append(r.scratch, buf.ReadOnlyData()...)
	}
	return r.scratch
}
