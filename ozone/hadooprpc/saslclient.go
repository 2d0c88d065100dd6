package hadooprpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// Kerberos is the Authenticator of a secure Hadoop client: SASL GSSAPI over Kerberos V5, as
// Hadoop's SaslRpcClient with the JDK's GSSAPI SaslClient runs it (docs/kerberos.md):
// NEGOTIATE, INITIATE with the AP-REQ, the acceptor's AP-REP checked (mutual authentication),
// then the security layer chosen from Protection and, for integrity or privacy, every later
// packet wrapped. Hadoop: org/apache/hadoop/security/SaslRpcClient.java.
type Kerberos struct {
	// Credentials get the service ticket.
	Credentials *kerberos.Credentials
	// Protection lists the acceptable protections in order of preference (hadoop.rpc.protection);
	// the first one the server offers is chosen. Empty means authentication only.
	Protection []QOP
	// Principal checks the server's advertised principal; the zero value accepts any.
	Principal ServerPrincipal
}

// ErrNoCommonProtection: the server offers none of the client's protections.
var ErrNoCommonProtection = errors.New("no common protection layer between client and server")

// Authenticate implements Authenticator. The failures the exchange itself decides (as opposed to
// I/O errors and the server's exceptions) are *AuthError: they are final.
func (k *Kerberos) Authenticate(ctx context.Context, s *SASLConn) (net.Conn, error) {
	c, err := k.authenticate(ctx, s)
	var fin finalError
	if errors.As(err, &fin) {
		return nil, &AuthError{Addr: s.Addr(), Err: fin.error}
	}
	return c, err
}

// finalError marks a failure of the exchange retrying cannot change; Authenticate turns it into
// an *AuthError.
type finalError struct{ error }

func final(err error) error { return finalError{err} }

// finalIfRefused marks the KDC's refusal of a service ticket as final; a KDC that cannot be
// reached is not.
func finalIfRefused(err error) error {
	if errors.Is(err, kerberos.ErrKDCRefused) {
		return final(err)
	}
	return err
}

func (k *Kerberos) authenticate(_ context.Context, s *SASLConn) (net.Conn, error) {
	if k.Credentials == nil {
		return nil, errors.New("hadooprpc: Kerberos authenticator without credentials")
	}
	prot := k.Protection
	if len(prot) == 0 {
		prot = []QOP{QOPAuthentication}
	}
	if err := s.Send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_NEGOTIATE.Enum()}); err != nil {
		return nil, err
	}
	m, err := s.Recv()
	if err != nil {
		return nil, err
	}
	if m.GetState() == hadooppb.RpcSaslProto_SUCCESS {
		// Java's default ipc.client.fallback-to-simple-auth-allowed = false.
		return nil, final(errors.New("the server accepts only SIMPLE authentication and a Kerberos client does not fall back to it " +
			"(hadoop.security.authentication is kerberos here; the server is not secure)"))
	}
	if m.GetState() != hadooppb.RpcSaslProto_NEGOTIATE {
		return nil, final(fmt.Errorf("SASL: server answered NEGOTIATE with %v", m.GetState()))
	}
	auth, err := pickKerberos(m.GetAuths())
	if err != nil {
		return nil, err
	}
	gss, err := k.initiate(s, auth, prot)
	if err != nil {
		return nil, err
	}
	mask, serverMax, err := k.readOffer(s, gss)
	if err != nil {
		return nil, err
	}
	return k.selectLayer(s, gss, prot, mask, serverMax)
}

// pickKerberos takes the first KERBEROS/GSSAPI auth. A TOKEN (DIGEST-MD5) offer, which an Ozone
// Manager lists first, is skipped: this client holds no delegation token.
func pickKerberos(auths []*hadooppb.RpcSaslProto_SaslAuth) (*hadooppb.RpcSaslProto_SaslAuth, error) {
	var offered []string
	for _, a := range auths {
		if a.GetMethod() == "KERBEROS" && a.GetMechanism() == "GSSAPI" {
			return a, nil
		}
		offered = append(offered, a.GetMethod()+"/"+a.GetMechanism())
	}
	return nil, final(fmt.Errorf("SASL: the server offers no Kerberos (GSSAPI) authentication: %v", offered))
}

// initiate checks the server principal, sends the AP-REQ and checks the AP-REP.
func (k *Kerberos) initiate(s *SASLConn, auth *hadooppb.RpcSaslProto_SaslAuth, prot []QOP) (*kerberos.Context, error) {
	// The ticket is for the advertised name with the host lower-cased, as the JDK asks for it.
	host := strings.ToLower(auth.GetServerId())
	service := auth.GetProtocol() + "/" + host
	advertised := service + "@" + k.Credentials.RealmOf(host)
	if k.Principal != (ServerPrincipal{}) {
		if err := k.Principal.Check(advertised, s.Addr()); err != nil {
			return nil, final(err)
		}
	}
	flags := kerberos.FlagMutual | kerberos.FlagInteg | kerberos.FlagConf
	if qopMask(prot) != byte(QOPAuthentication) {
		flags |= kerberos.FlagSequence // as the JDK initiator does above "auth"
	}
	ini, tok, err := k.Credentials.Initiate(service, flags)
	if err != nil {
		return nil, finalIfRefused(err)
	}
	echo := &hadooppb.RpcSaslProto_SaslAuth{Method: auth.Method, Mechanism: auth.Mechanism, Protocol: auth.Protocol, ServerId: auth.ServerId}
	if err := s.Send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_INITIATE.Enum(), Token: tok, Auths: []*hadooppb.RpcSaslProto_SaslAuth{echo}}); err != nil {
		return nil, err
	}
	m, err := expectChallenge(s)
	if err != nil {
		return nil, err
	}
	gss, err := ini.Complete(m.GetToken())
	if err != nil {
		return nil, final(fmt.Errorf("SASL: mutual authentication of %s failed: %w", advertised, err))
	}
	// The GSSAPI client answers the AP-REP with an empty token, and the field must be present.
	if err := s.Send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_RESPONSE.Enum(), Token: []byte{}}); err != nil {
		return nil, err
	}
	return gss, nil
}

func expectChallenge(s *SASLConn) (*hadooppb.RpcSaslProto, error) {
	m, err := s.Recv()
	if err != nil {
		return nil, err
	}
	if m.GetState() != hadooppb.RpcSaslProto_CHALLENGE || m.Token == nil {
		return nil, fmt.Errorf("SASL: expected a CHALLENGE with a token, got %v", m.GetState())
	}
	return m, nil
}

// readOffer unwraps the server's security-layer offer.
func (k *Kerberos) readOffer(s *SASLConn, gss *kerberos.Context) (mask byte, maxBuf int, err error) {
	m, err := expectChallenge(s)
	if err != nil {
		return 0, 0, err
	}
	b, _, err := gss.Unwrap(m.GetToken())
	if err != nil {
		return 0, 0, final(fmt.Errorf("SASL: security-layer offer: %w", err))
	}
	mask, maxBuf, err = wire.ParseLayer(b)
	if err != nil {
		return 0, 0, final(fmt.Errorf("SASL: %w", err))
	}
	return mask, maxBuf, nil
}

// selectLayer answers the offer with the first of prot the server offers and waits for SUCCESS.
func (k *Kerberos) selectLayer(s *SASLConn, gss *kerberos.Context, prot []QOP, mask byte, serverMax int) (net.Conn, error) {
	var chosen QOP
	for _, q := range prot {
		if mask&byte(q) != 0 {
			chosen = q
			break
		}
	}
	if chosen == 0 {
		return nil, final(fmt.Errorf("%w: the server offers %s, hadoop.rpc.protection here is %s", ErrNoCommonProtection, maskString(mask), maskString(qopMask(prot))))
	}
	tok, err := gss.Wrap(wire.LayerMessage(byte(chosen), wire.MaxBuffer), false)
	if err != nil {
		return nil, err
	}
	if err := s.Send(&hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_RESPONSE.Enum(), Token: tok}); err != nil {
		return nil, err
	}
	m, err := s.Recv()
	if err != nil {
		return nil, err
	}
	if m.GetState() != hadooppb.RpcSaslProto_SUCCESS {
		return nil, fmt.Errorf("SASL: expected SUCCESS after the security layer, got %v", m.GetState())
	}
	if len(m.GetToken()) > 0 {
		return nil, errors.New("SASL: Client generated spurious response (the server sent a token with SUCCESS)")
	}
	if chosen == QOPAuthentication {
		return s.Conn(), nil
	}
	return newWrappedClientConn(s.Conn(), gss, chosen == QOPPrivacy, rawSendSize(serverMax, chosen), s.MaxResponseLength()), nil
}

// rawSendSize is the largest plaintext one wrap token may carry so that the token fits the
// peer's buffer: its maximum less the token's overhead (header, confounder, header copy,
// checksum). The JDK computes the same bound (sun.security.jgss.krb5.WrapToken_v2 sizes).
func rawSendSize(peerMax int, q QOP) int {
	overhead := 16 + 12
	if q == QOPPrivacy {
		overhead = 16 + 16 + 16 + 12
	}
	if peerMax <= overhead {
		return 1 << 16
	}
	return peerMax - overhead
}
