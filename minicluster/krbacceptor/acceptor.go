// Package krbacceptor is the server side of Kerberos for the emulator: a GSS-API acceptor that
// verifies a client's AP-REQ against a service keytab and answers with the AP-REP, as the JDK's
// acceptor behind a secure SCM or OM does (docs/kerberos.md#the-emulator). The security context
// it establishes is ozone/kerberos's, the one the client wraps and unwraps with.
package krbacceptor

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	krbflags "github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/dnecho/dnecho/ozone/kerberos"
)

// DefaultClockSkew is the largest difference between the client's and our clocks an AP-REQ may
// show (MIT and the JDK both default to five minutes: krb5.conf clockskew).
const DefaultClockSkew = 5 * time.Minute

// Acceptor verifies AP-REQs for one service principal with that principal's keys from a keytab,
// as a server's GSS-API acceptor does. It keeps a replay cache. Safe for concurrent use.
type Acceptor struct {
	kt        *keytab.Keytab
	name      types.PrincipalName
	realm     string
	principal string

	mu     sync.Mutex
	replay map[string]time.Time
}

// New loads the keytab and checks it holds keys for principal ("scm/host@REALM").
func New(keytabPath, principal string) (*Acceptor, error) {
	name, realm, ok := strings.Cut(principal, "@")
	if !ok || name == "" || realm == "" {
		return nil, fmt.Errorf("kerberos: acceptor principal %q: want service/host@REALM", principal)
	}
	kt, err := kerberos.LoadKeytab(keytabPath)
	if err != nil {
		return nil, err
	}
	a := newAcceptor(kt, name, realm)
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("kerberos: keytab %s has no key for %s", keytabPath, principal)
}

func newAcceptor(kt *keytab.Keytab, name, realm string) *Acceptor {
	return &Acceptor{kt: kt, name: types.NewPrincipalName(nametype.KRB_NT_SRV_HST, name), realm: realm,
		principal: name + "@" + realm, replay: map[string]time.Time{}}
}

// Principal returns the service principal.
func (a *Acceptor) Principal() string { return a.principal }

// Accepted is an AP-REQ that verified.
type Accepted struct {
	// Context protects the messages that follow.
	Context *kerberos.Context
	// Client is the authenticated client principal, "alice@REALM".
	Client string
	// Reply is the AP-REP token to send when the initiator asked for mutual authentication;
	// nil otherwise.
	Reply []byte
}

// ErrRejected marks an AP-REQ the acceptor refuses (wrong service, bad key, expired, replayed).
var ErrRejected = errors.New("kerberos: AP-REQ rejected")

// Accept verifies an initial context token from a client at addr (nil to skip the address
// check) and builds the AP-REP. Like the JDK's default acceptor it adds no acceptor subkey, so
// wrap tokens use the initiator's subkey (or the session key without one).
func (a *Acceptor) Accept(token []byte, addr net.IP) (*Accepted, error) {
	id, inner, err := kerberos.ParseToken(token)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRejected, err)
	}
	if id != kerberos.TokenAPReq {
		return nil, fmt.Errorf("%w: token id %04x, want an AP-REQ (0100)", ErrRejected, id)
	}
	var req messages.APReq
	if err := req.Unmarshal(inner); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRejected, err)
	}
	if err := a.verify(&req, addr); err != nil {
		return nil, err
	}
	auth := req.Authenticator
	flags, err := checksumFlags(auth.Cksum)
	if err != nil {
		return nil, err
	}
	if err := a.checkReplay(auth); err != nil {
		return nil, err
	}
	session := req.Ticket.DecryptedEncPart.Key
	client := auth.CName.PrincipalNameString() + "@" + auth.CRealm
	initSeq := uint64(auth.SeqNumber)
	if !types.IsFlagSet(&req.APOptions, krbflags.APOptionMutualRequired) && flags&kerberos.FlagMutual == 0 {
		ctx, err := kerberos.NewAcceptorContext(flags, session, auth.SubKey, initSeq, initSeq)
		return &Accepted{Context: ctx, Client: client}, err
	}
	seq, err := randomSeq()
	if err != nil {
		return nil, err
	}
	reply, err := apRep(session, auth, seq)
	if err != nil {
		return nil, err
	}
	ctx, err := kerberos.NewAcceptorContext(flags, session, auth.SubKey, initSeq, seq)
	if err != nil {
		return nil, err
	}
	return &Accepted{Context: ctx, Client: client, Reply: reply}, nil
}

// verify checks the ticket is for our principal and decrypts with our key, is within its
// validity and the clock skew, and that the authenticator matches it.
func (a *Acceptor) verify(req *messages.APReq, addr net.IP) error {
	sname := strings.Join(req.Ticket.SName.NameString, "/")
	if want := strings.Join(a.name.NameString, "/"); sname != want || req.Ticket.Realm != a.realm {
		return fmt.Errorf("%w: the ticket is for %s@%s, this server is %s", ErrRejected, sname, req.Ticket.Realm, a.principal)
	}
	var ha types.HostAddress
	if addr != nil {
		ha = types.HostAddressFromNetIP(addr)
	}
	ok, err := req.Verify(a.kt, DefaultClockSkew, ha, &a.name)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRejected, err)
	}
	if !ok {
		return fmt.Errorf("%w: the ticket is not valid now", ErrRejected)
	}
	return nil
}

// checksumFlags reads the GSS-API flags from an authenticator checksum of type 0x8003.
func checksumFlags(c types.Checksum) (int, error) {
	if c.CksumType != chksumtype.GSSAPI || len(c.Checksum) < 24 {
		return 0, fmt.Errorf("%w: authenticator checksum of type %d and %d bytes, want a GSS-API checksum (0x8003, at least 24 bytes)",
			ErrRejected, c.CksumType, len(c.Checksum))
	}
	return int(binary.LittleEndian.Uint32(c.Checksum[20:24])), nil
}

// checkReplay refuses an authenticator seen before within the clock skew.
func (a *Acceptor) checkReplay(auth types.Authenticator) error {
	key := fmt.Sprintf("%s@%s|%d|%d", auth.CName.PrincipalNameString(), auth.CRealm, auth.CTime.Unix(), auth.Cusec)
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, t := range a.replay {
		if now.Sub(t) > 2*DefaultClockSkew {
			delete(a.replay, k)
		}
	}
	if _, seen := a.replay[key]; seen {
		return fmt.Errorf("%w: replayed authenticator", ErrRejected)
	}
	a.replay[key] = now
	return nil
}

func randomSeq() (uint64, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<30))
	if err != nil {
		return 0, fmt.Errorf("kerberos: sequence number: %w", err)
	}
	return n.Uint64() + 1, nil // never 0: an optional field equal to 0 would not be encoded
}

// apRep builds the framed AP-REP (RFC 4120 §5.5.2): the authenticator's time and our sequence
// number, encrypted with the ticket's session key (key usage 12).
func apRep(session types.EncryptionKey, auth types.Authenticator, seq uint64) ([]byte, error) {
	part := messages.EncAPRepPart{CTime: auth.CTime.UTC().Truncate(time.Second), Cusec: auth.Cusec, SequenceNumber: int64(seq)}
	pb, err := asn1.Marshal(part)
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP: %w", err)
	}
	ed, err := crypto.GetEncryptedData(asn1tools.AddASNAppTag(pb, asnAppTag.EncAPRepPart), session, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP: %w", err)
	}
	rb, err := asn1.Marshal(messages.APRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: ed})
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP: %w", err)
	}
	return kerberos.FrameToken(kerberos.TokenAPRep, asn1tools.AddASNAppTag(rb, asnAppTag.APREP)), nil
}
