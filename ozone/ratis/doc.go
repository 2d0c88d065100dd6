// Package ratis is a Go client for Echo through the Apache Ratis client protocol of an Ozone
// pipeline: the path `ozone freon dn-echo --ratis` takes (XceiverClientRatis in Ozone, the Ratis
// async client inside it). docs/ozone-ratis.md explains the protocol and cites the upstream
// sources.
//
// A Client is one Raft client (freon's --clients N makes N): one gRPC connection per DataNode
// to its RATIS port, one `ordered` stream at a time to the DataNode it believes leads, a random
// 16-byte client id, and call ids and sequence numbers counting up from 1. Like the Java client
// it first sends a watch request, holds every other request until that first reply, and after a
// NotLeader, LeaderNotReady or a broken stream resends every unanswered request, the oldest
// flagged first, with its call id and sequence number, on a new stream to the leader it was told
// of (or the next member), sleeping as Ozone 2.2.0's retry policy says. A stream it gives up or
// closes is half-closed and given CloseTimeout to end with the server's OK before it is
// cancelled, as Java's is (a cancelled stream is a WARN in a real DataNode's log).
//
// Echo wraps the same Echo request the gRPC path sends (4-byte length, then the request) as a
// Raft read (Echo readOnly) or write, and unwraps the reply: a Raft exception becomes an *Error,
// a stream that ends with a gRPC status a *StreamError, and the Ozone response inside a
// successful reply is checked like on the gRPC path (a non-SUCCESS result is a
// *datanode.EchoError).
//
// The wire facts shared with the emulated DataNode (minicluster/raftsim) live in wire.go.
package ratis
