package floor

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Field numbers of ContainerCommandResponseProto that a proto2 parser requires
// (Ozone: DatanodeClientProtocol.proto).
const (
	fieldCmdType protowire.Number = 1
	fieldResult  protowire.Number = 3
)

// ErrMalformed reports reply bytes a protobuf parser would reject.
var ErrMalformed = errors.New("floor: malformed reply")

// CheckReply scans an encoded ContainerCommandResponseProto without unmarshalling it and returns
// its result field. It fails where protobuf-go's parser fails on the fields it reads: bytes that
// are not a well-formed message, a required field (cmdType, result) missing. It does not look
// inside the echo payload message, and it does not allocate unless it fails.
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
			// protobuf-go, like dnecho's client, takes any value of these proto2
			// enums; a value Result does not name is not SUCCESS, so it fails the
			// call as Java's parser would.
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
