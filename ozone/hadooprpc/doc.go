// Package hadooprpc is a Hadoop IPC version 9 client with the protobuf RPC engine: one TCP
// connection per server and protocol, calls multiplexed on it and matched by callId, pings and
// idle close as in Java, and SASL authentication (a SIMPLE fallback, and Kerberos GSSAPI with
// every hadoop.rpc.protection). The bytes it exchanges are ozone/hadooprpc/wire's; the
// emulator's server (minicluster/rpcserver) speaks the same.
//
// Wire facts come from docs/hadoop-rpc.md and the upstream headers in apache/ozone:
// hadoop-hdds/interface-client/src/main/proto/RpcHeader.proto, IpcConnectionContext.proto and
// ProtobufRpcEngine.proto.
package hadooprpc
