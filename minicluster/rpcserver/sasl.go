package rpcserver

import (
	"fmt"
	"net"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// gssState is where a connection's GSSAPI exchange stands, as in the JDK's GssKrb5Server.
type gssState struct {
	step     int // gssInitiate, gssAwaitEmpty or gssAwaitLayer
	accepted *krbacceptor.Accepted
	authUser string // the authenticated client principal, once SASL succeeded
}

const (
	gssInitiate = iota
	gssAwaitEmpty
	gssAwaitLayer
)

// digestChallenge stands in for the DIGEST-MD5 challenge a token-capable server puts in its
// TOKEN offer; clients without a token never read it.
const digestChallenge = `realm="default",nonce="dnecho",qop="auth",charset=utf-8,algorithm=md5-sess`

// advertised lists the auths of NEGOTIATE: TOKEN first when offered, then KERBEROS for the
// server principal split into protocol and server id.
// Hadoop: org/apache/hadoop/ipc/Server.java (buildNegotiateResponse).
func (s *Server) advertised() []*hadooppb.RpcSaslProto_SaslAuth {
	protocol, serverID := splitPrincipal(s.opts.KerberosPrincipal)
	var auths []*hadooppb.RpcSaslProto_SaslAuth
	if s.opts.OfferToken {
		auths = append(auths, &hadooppb.RpcSaslProto_SaslAuth{Method: proto.String("TOKEN"), Mechanism: proto.String("DIGEST-MD5"),
			Protocol: proto.String(""), ServerId: proto.String("default"), Challenge: []byte(digestChallenge)})
	}
	return append(auths, &hadooppb.RpcSaslProto_SaslAuth{Method: proto.String("KERBEROS"), Mechanism: proto.String("GSSAPI"),
		Protocol: &protocol, ServerId: &serverID})
}

// saslFail is the FATAL reply of a failed SASL exchange: callId -1, FATAL_UNAUTHORIZED.
func (sc *conn) saslFail(msg string) bool {
	sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalUnauthorized, "javax.security.sasl.SaslException", msg)
	return false
}

func (sc *conn) gssapiStep(m *hadooppb.RpcSaslProto) bool {
	switch {
	case m.GetState() == hadooppb.RpcSaslProto_INITIATE && sc.gss.step == gssInitiate:
		return sc.gssInitiate(m)
	case m.GetState() == hadooppb.RpcSaslProto_RESPONSE && sc.gss.step == gssAwaitEmpty:
		// The JDK acceptor's messages for a missing or a non-empty answer to its AP-REP.
		if m.Token == nil {
			return sc.saslFail("Client did not send a token")
		}
		if len(m.Token) > 0 {
			return sc.saslFail("Handshake expecting no response data from server")
		}
		return sc.sendOffer()
	case m.GetState() == hadooppb.RpcSaslProto_RESPONSE && sc.gss.step == gssAwaitLayer:
		return sc.gssLayer(m.GetToken())
	}
	return sc.saslFail(fmt.Sprintf("Client sent %v out of turn", m.GetState()))
}

// gssInitiate checks the echoed auth and the AP-REQ and answers with the AP-REP (or, without
// mutual authentication, directly with the security-layer offer).
func (sc *conn) gssInitiate(m *hadooppb.RpcSaslProto) bool {
	if len(m.GetAuths()) != 1 {
		return sc.saslFail("Client mechanism is malformed")
	}
	a := m.GetAuths()[0]
	if !sc.isAdvertised(a) {
		if !sc.sentNegotiate {
			sc.sentNegotiate = true
			return sc.saslReply(sc.kerberosNegotiate())
		}
		sc.fatal(wire.CallIDAuthFailed, -1, hadooprpc.FatalUnauthorized, "org.apache.hadoop.security.AccessControlException",
			a.GetMethod()+" authentication is not enabled.  Available:[KERBEROS]")
		return false
	}
	if a.GetMethod() != "KERBEROS" {
		return sc.saslFail("DIGEST-MD5: this server cannot verify delegation tokens")
	}
	var ip net.IP
	if ta, ok := sc.nc.RemoteAddr().(*net.TCPAddr); ok {
		ip = ta.IP
	}
	acc, err := sc.s.opts.Kerberos.Accept(m.GetToken(), ip)
	if err != nil {
		return sc.saslFail("GSS initiate failed [Caused by GSSException: " + err.Error() + "]")
	}
	sc.gss.accepted = acc
	if acc.Reply == nil {
		return sc.sendOffer()
	}
	sc.gss.step = gssAwaitEmpty
	return sc.saslReply(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_CHALLENGE.Enum(), Token: acc.Reply})
}

// isAdvertised compares the echoed auth with the offers field by field; the client must have
// cleared the challenge.
func (sc *conn) isAdvertised(a *hadooppb.RpcSaslProto_SaslAuth) bool {
	for _, o := range sc.s.advertised() {
		if a.GetMethod() == o.GetMethod() && a.GetMechanism() == o.GetMechanism() && a.GetProtocol() == o.GetProtocol() &&
			a.GetServerId() == o.GetServerId() && a.Challenge == nil {
			return true
		}
	}
	return false
}

// sendOffer sends the wrapped security-layer offer: every configured protection and the JDK's
// 64 KiB maximum buffer.
func (sc *conn) sendOffer() bool {
	tok, err := sc.gss.accepted.Context.Wrap(wire.LayerMessage(sc.s.offered, wire.MaxBuffer), false)
	if err != nil {
		return sc.saslFail("GSSAPI wrap: " + err.Error())
	}
	sc.gss.step = gssAwaitLayer
	return sc.saslReply(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_CHALLENGE.Enum(), Token: tok})
}

// gssLayer reads the client's choice, answers SUCCESS and turns wrapping on.
func (sc *conn) gssLayer(tok []byte) bool {
	ctx := sc.gss.accepted.Context
	b, err := wire.OpenWrapped(ctx, tok, false)
	if err != nil {
		return sc.saslFail("Final handshake failed: " + err.Error())
	}
	sel, _, err := wire.ParseLayer(b)
	if err != nil {
		return sc.saslFail("Final handshake failed: " + err.Error())
	}
	if sel&sc.s.offered == 0 || sel&(sel-1) != 0 {
		return sc.saslFail(fmt.Sprintf("Client selected unsupported protection: %d", sel))
	}
	client := sc.gss.accepted.Client
	if authz := string(b[4:]); authz != "" && authz != client {
		return sc.saslFail(fmt.Sprintf("Authorization ID %s does not match the authenticated principal %s", authz, client))
	}
	if !sc.saslReply(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_SUCCESS.Enum()}) {
		return false
	}
	sc.sasl = false
	sc.gss.authUser = client
	if q := hadooprpc.QOP(sel); q != hadooprpc.QOPAuthentication {
		sc.wrapCtx, sc.seal = ctx, q == hadooprpc.QOPPrivacy
	}
	return true
}

// unwrapPacket opens a client WRAP packet and processes every whole frame it completes; a
// frame may span packets and a packet may hold several frames.
func (sc *conn) unwrapPacket(tok []byte) bool {
	b, err := wire.OpenWrapped(sc.wrapCtx, tok, sc.seal)
	if err != nil {
		return sc.saslFail(err.Error())
	}
	sc.inbuf = append(sc.inbuf, b...)
	for {
		frame, ok, err := wire.NextFrame(sc.inbuf, sc.s.opts.MaxDataLength)
		if err != nil || !ok {
			return err == nil
		}
		sc.inbuf = sc.inbuf[4+len(frame):]
		if !sc.processOne(frame) {
			return false
		}
	}
}

// authorizeUser applies Hadoop's rule for a Kerberos connection: the context's effective user
// must be the authenticated principal (anything else is impersonation, which needs proxy-user
// rights this server does not grant). The call's user is then the principal.
// Hadoop: org/apache/hadoop/ipc/Server.java (processConnectionContext, authorizeConnection).
func (sc *conn) authorizeUser(id, retry int32) bool {
	auth := sc.gss.authUser
	if auth == "" {
		return true
	}
	if sc.user != "" && sc.user != auth {
		sc.fatal(id, retry, hadooprpc.FatalUnauthorized, "org.apache.hadoop.security.authorize.AuthorizationException",
			fmt.Sprintf("User: %s is not allowed to impersonate %s", auth, sc.user))
		return false
	}
	sc.user = auth
	return true
}
