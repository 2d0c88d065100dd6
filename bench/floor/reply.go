package floor

import "github.com/dnecho/dnecho/ozone/datanode"

// CheckReply scans an encoded reply for its result without unmarshalling it: the same in-place
// check dnecho's client makes (datanode.CheckReply), the least any client can do.
var CheckReply = datanode.CheckReply

// ErrMalformed reports reply bytes a protobuf parser would reject.
var ErrMalformed = datanode.ErrMalformed
