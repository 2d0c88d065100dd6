// Package dnsim emulates the client-facing gRPC service of an Apache Ozone
// DataNode well enough to answer Echo the way a real DataNode does.
//
// It serves /hadoop.hdds.datanode.XceiverClientProtocolService/send on a
// 127.0.0.1 listener and follows the dispatch order of docs/ozone-echo.md#echo-dispatch-order
// (token check, missing-container set, container lookup, EC replica check,
// sleep, payload size). Every other command type is answered with
// UNSUPPORTED_REQUEST. Requests that a strict proto2 parser would reject
// (missing required fields) end the stream with a gRPC error, as they do on a
// real DataNode.
//
// Beyond a real DataNode it offers fault injection (latency, error rate,
// stalls, stop/restart on the same port), optional self-signed TLS and call
// counters for tests. It never listens on anything but the loopback address.
package dnsim
