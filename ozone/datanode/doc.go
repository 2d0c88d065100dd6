// Package datanode is a Go client for the Echo command of an Apache Ozone
// DataNode's Xceiver gRPC service
// (/hadoop.hdds.datanode.XceiverClientProtocolService/send).
//
// By default it behaves like the Java client (XceiverClientGrpc and
// ContainerProtocolCalls.echo; docs/ozone-echo.md#java-client): one gRPC channel per
// DataNode reused across calls, a new bidirectional stream per request that is
// half-closed right after the request, the pipeline's first member first, a
// retry on the next member after any failure except UNAUTHENTICATED, a 30 s
// deadline, 32 MiB messages and at most 32 calls in flight per Client.
//
// Options go beyond Java: a reused stream per DataNode, spreading calls over
// every replica, pinning one DataNode, turning retries off, and TLS with
// explicit CA files.
//
// Every call returns a Result, also on failure, so a load generator can count
// and tag each call by DataNode, Ozone result and gRPC status.
package datanode
