// Package kerberos is the client side of the Kerberos V5 GSS-API mechanism (RFC 4121) that
// Hadoop's SASL GSSAPI layer runs on: login from a ticket cache or a keytab, the initiator's
// AP-REQ and its check of the acceptor's AP-REP, and the per-message wrap tokens (integrity or
// sealed) with their sequence numbers. It builds on github.com/jcmturner/gokrb5/v8 for the KDC
// exchanges and the cryptography, and fills what that library leaves out (AP-REP checking,
// sealed wrap tokens, sequence numbers, rotated tokens). docs/kerberos.md explains every rule
// with its upstream source.
//
// The acceptor, the server side, is the emulator's (minicluster/krbacceptor). What it shares with
// the initiator is exported here: the framing of initial context tokens, the keytab reader, and
// the Context both sides wrap and unwrap with (NewAcceptorContext is the acceptor's).
//
// It knows nothing of Hadoop RPC: ozone/hadooprpc runs the SASL exchange on top of it.
package kerberos
