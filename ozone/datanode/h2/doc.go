// Package h2 is a client transport for one gRPC method over HTTP/2, made for the Echo exchange
// with an Ozone DataNode: a Channel keeps one HTTP/2 connection to one server (dialled on first
// use, dialled again after it is lost), each connection has one reader and one writer
// goroutine, and a call is a stream carrying pre-encoded, length-prefixed messages.
//
// It does what the exchange needs and no more: requests are bytes encoded once by the caller;
// the request header block is HPACK-encoded once per connection and then sent as the same few
// bytes (every field an index into the connection's dynamic table); the writer sends what every
// caller queued since its last wake-up in one write; a response message is checked for its size
// and kept without its long length-delimited fields (an Echo payload is counted, never
// copied); a call allocates nothing and starts no goroutine. Flow control, SETTINGS, PING,
// GOAWAY, RST_STREAM, grpc-timeout, trailers and TLS with ALPN follow RFC 9113, RFC 7541 and
// gRPC's PROTOCOL-HTTP2.md; docs/h2-transport.md has the design, the protocol facts with their
// sources, and where it differs from grpc-go.
package h2
