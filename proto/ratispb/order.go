// Hand-written helper beside the generated code: the Go protobuf runtime writes the fields of a
// oneof after every other field, while Ratis (Java) writes all fields in field-number order. A
// reply carrying an exception and logIndex or commitInfos therefore differs in byte order (not
// in meaning). MarshalInOrder writes Java's order, so an emulated DataNode sends the same bytes
// as a real one.

package ratispb

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Field numbers of RaftClientReplyProto written after the ExceptionDetails oneof.
const (
	replyLogIndexField    = 14
	replyCommitInfosField = 15
)

// MarshalInOrder encodes r with its fields in field-number order, as Ratis does.
func (r *RaftClientReplyProto) MarshalInOrder() ([]byte, error) {
	head := &RaftClientReplyProto{RpcReply: r.RpcReply, Message: r.Message, ExceptionDetails: r.ExceptionDetails}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(head)
	if err != nil {
		return nil, err
	}
	if r.LogIndex != 0 {
		b = protowire.AppendTag(b, replyLogIndexField, protowire.VarintType)
		b = protowire.AppendVarint(b, r.LogIndex)
	}
	for _, ci := range r.CommitInfos {
		m, err := proto.MarshalOptions{Deterministic: true}.Marshal(ci)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, replyCommitInfosField, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	return b, nil
}
