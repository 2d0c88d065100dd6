// Package raftsim emulates the Raft groups of an Ozone cluster's pipelines as Echo traffic sees
// them through the Ratis client protocol (docs/ozone-ratis.md): a Group is one pipeline, with a
// leader, a log, per-replica replication delays, a commit on a majority, an apply of every
// write on every replica (one at a time per container), a retry cache for duplicate call ids,
// leadership that moves on command, and a LeaderNotReady window after a move. A Service is the
// RaftClientProtocolService one DataNode serves on its RATIS port for every group it is a member
// of; it enforces the ordered stream's rules (sliding window, replies in sequence order, stream
// errors with the Java exception class in the exception-type trailer) so that a client that
// breaks them fails or stalls as it would against a real DataNode.
//
// The DataNode itself (token checks, containers, the Echo handler and its sleep, the handler
// threads) is a Replica: minicluster/dnsim implements it.
package raftsim
