package datanode

import (
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
	"github.com/dnecho/dnecho/proto/dnpb"
)

// The Echo hot path neither builds nor parses messages: a request is encoded once by Prepare and
// handed to grpc-go as bytes, and a reply is checked in place for its result. Only a reply that
// is not SUCCESS is parsed, for its message. The bytes on the wire are exactly the generated
// code's (wire_test.go checks both directions against protobuf-go).

// encoded is an immutable, encoded request.
type encoded struct {
	// bufs wraps the bytes for grpc-go without copying; mem.SliceBuffer's Ref and Free do
	// nothing, so grpc-go may hold and release it any number of times.
	bufs mem.BufferSlice
	// framed is the same bytes behind their gRPC message prefix, for package h2.
	framed []byte
	size   int
	uuid   string // datanodeUuid, to share an encoding between members that get the same one
}

func encode(msg *dnpb.ContainerCommandRequestProto) (*encoded, error) {
	// The message is encoded behind room for its prefix, so both transports share the bytes.
	framed := make([]byte, h2.PrefixLen, h2.PrefixLen+proto.Size(msg))
	framed, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(framed, msg)
	if err != nil {
		return nil, fmt.Errorf("datanode: encode echo request: %w", err)
	}
	h2.PutPrefix(framed)
	b := framed[h2.PrefixLen:]
	return &encoded{bufs: mem.BufferSlice{mem.SliceBuffer(b)}, framed: framed, size: len(b), uuid: msg.GetDatanodeUuid()}, nil
}

// reply is one received response, checked in place.
type reply struct {
	result  dnpb.Result
	size    int
	message string // of a failed result only
	scratch []byte // for a reply grpc-go delivered in pieces
}

// replies recycles the replies of new-stream calls (a reused stream keeps its own).
var replies = sync.Pool{New: func() any { return new(reply) }}

// codec is the channel's grpc-go codec: requests are *encoded, replies *reply. Its name is empty
// so that the content-type stays "application/grpc", as grpc-go's proto codec and the Java
// client send it.
type codec struct{}

func (codec) Name() string { return "" }

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	e, ok := v.(*encoded)
	if !ok {
		return nil, fmt.Errorf("datanode: codec cannot marshal %T", v)
	}
	return e.bufs, nil
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*reply)
	if !ok {
		return fmt.Errorf("datanode: codec cannot unmarshal into %T", v)
	}
	b := r.contiguous(data)
	return r.check(b, len(b))
}

// check judges an encoded reply (b, of size bytes on the wire): its result, and the message
// of a result that is not SUCCESS.
func (r *reply) check(b []byte, size int) error {
	res, err := CheckReply(b)
	if err != nil {
		return err
	}
	r.result, r.size, r.message = res, size, ""
	if res != dnpb.Result_SUCCESS {
		var m dnpb.ContainerCommandResponseProto
		if err := proto.Unmarshal(b, &m); err != nil {
			return err
		}
		r.message = m.GetMessage()
	}
	return nil
}

// contiguous returns data as one slice: the buffer itself when grpc-go delivered the reply in one
// piece (small replies always are), else a copy in r's scratch space.
func (r *reply) contiguous(data mem.BufferSlice) []byte {
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

// Field numbers of ContainerCommandResponseProto that a proto2 parser requires
// (Ozone: hadoop-hdds/interface-client/src/main/proto/DatanodeClientProtocol.proto).
const (
	fieldCmdType protowire.Number = 1
	fieldResult  protowire.Number = 3
)

// ErrMalformed reports reply bytes a protobuf parser would reject.
var ErrMalformed = errors.New("datanode: malformed reply")

// CheckReply scans an encoded ContainerCommandResponseProto without unmarshalling it and returns
// its result field. It fails where protobuf-go's parser fails on the fields it reads: bytes that
// are not a well-formed message, a required field (cmdType, result) missing. It does not look
// inside the echo payload, and it does not allocate unless it fails.
func CheckReply(b []byte) (dnpb.Result, error) {
	var result dnpb.Result
	var sawCmd, sawResult bool
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, ErrMalformed
		}
		b = b[n:]
		if (num == fieldCmdType || num == fieldResult) && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, ErrMalformed
			}
			b = b[n:]
			// protobuf-go takes any value of these proto2 enums; a value Result does not
			// name is not SUCCESS, so it fails the call as Java's parser would.
			if num == fieldResult {
				result, sawResult = dnpb.Result(int32(v)), true
			} else {
				sawCmd = true
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, ErrMalformed
		}
		b = b[n:]
	}
	if !sawCmd || !sawResult {
		return 0, fmt.Errorf("%w: required field cmdType or result missing", ErrMalformed)
	}
	return result, nil
}
