package kerberos

import (
	"encoding/binary"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	krbflags "github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Initiator is the client side of a context whose AP-REQ has been built.
type Initiator struct {
	session types.EncryptionKey
	auth    types.Authenticator
	flags   int
}

// Initiate gets a service ticket for service ("scm/host") and returns the initial context token
// (the framed AP-REQ). Like the JDK's initiator (sun.security.jgss.krb5.InitSecContextToken) the
// authenticator carries a fresh subkey and a random sequence number, so wrap tokens are keyed
// with the subkey. flags are the GSS-API flags to ask for; with FlagMutual the acceptor must
// answer with an AP-REP, which Complete checks.
func (c *Credentials) Initiate(service string, flags int) (*Initiator, []byte, error) {
	tkt, key, err := c.ServiceTicket(service)
	if err != nil {
		return nil, nil, err
	}
	auth, err := types.NewAuthenticator(c.cl.Credentials.Domain(), c.cl.Credentials.CName())
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: authenticator: %w", err)
	}
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(flags)}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: ticket for %s: encryption type %d: %w", service, key.KeyType, err)
	}
	if err := auth.GenerateSeqNumberAndSubKey(key.KeyType, et.GetKeyByteSize()); err != nil {
		return nil, nil, fmt.Errorf("kerberos: subkey: %w", err)
	}
	req, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: AP-REQ for %s: %w", service, err)
	}
	if flags&FlagMutual != 0 {
		types.SetFlag(&req.APOptions, krbflags.APOptionMutualRequired)
	}
	b, err := req.Marshal()
	if err != nil {
		return nil, nil, fmt.Errorf("kerberos: AP-REQ for %s: %w", service, err)
	}
	return &Initiator{session: key, auth: auth, flags: flags}, FrameToken(TokenAPReq, b), nil
}

// gssChecksum is the authenticator checksum of type 0x8003 (RFC 4121 §4.1.1): the length of the
// channel binding (16, all zero: none), then the context flags, little-endian.
func gssChecksum(flags int) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b[0:4], 16)
	binary.LittleEndian.PutUint32(b[20:24], uint32(flags))
	return b
}

// Complete checks the acceptor's reply token: an AP-REP that decrypts with the ticket's session
// key and echoes our authenticator's time proves the server holds the service key (mutual
// authentication). Its subkey and sequence number, if any, set up the context.
func (i *Initiator) Complete(token []byte) (*Context, error) {
	id, inner, err := ParseToken(token)
	if err != nil {
		return nil, fmt.Errorf("kerberos: acceptor reply: %w", err)
	}
	switch id {
	case TokenAPRep:
	case TokenError:
		var e messages.KRBError
		if err := e.Unmarshal(inner); err != nil {
			return nil, fmt.Errorf("kerberos: the acceptor refused the AP-REQ (its KRB-ERROR does not decode: %v)", err)
		}
		return nil, fmt.Errorf("kerberos: the acceptor refused the AP-REQ: %s", e.Error())
	default:
		return nil, fmt.Errorf("kerberos: acceptor reply: token id %04x, want an AP-REP (0200)", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(inner); err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP: %w", err)
	}
	pt, err := crypto.DecryptEncPart(rep.EncPart, i.session, keyusage.AP_REP_ENCPART)
	if err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP does not decrypt with the ticket's session key (the server is not who it claims to be): %w", err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(pt); err != nil {
		return nil, fmt.Errorf("kerberos: AP-REP: %w", err)
	}
	if part.CTime.Unix() != i.auth.CTime.Unix() || part.Cusec != i.auth.Cusec {
		return nil, fmt.Errorf("kerberos: AP-REP answers another authenticator (time %v.%06d, ours %v.%06d)",
			part.CTime.Unix(), part.Cusec, i.auth.CTime.Unix(), i.auth.Cusec)
	}
	return newContext(false, i.flags, i.session, i.auth.SubKey, part.Subkey, uint64(i.auth.SeqNumber), uint64(part.SequenceNumber))
}

// CompleteWithoutReply sets up the context of an initiator that did not ask for mutual
// authentication: both directions then start at the authenticator's sequence number.
func (i *Initiator) CompleteWithoutReply() (*Context, error) {
	seq := uint64(i.auth.SeqNumber)
	return newContext(false, i.flags, i.session, i.auth.SubKey, types.EncryptionKey{}, seq, seq)
}
