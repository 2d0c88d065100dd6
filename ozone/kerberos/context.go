package kerberos

import (
	"errors"
	"fmt"
	"sync"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/crypto/etype"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSS-API context flags carried in the AP-REQ checksum (RFC 4121 §4.1.1.1).
const (
	FlagMutual   = 0x02
	FlagReplay   = 0x04
	FlagSequence = 0x08
	FlagConf     = 0x10
	FlagInteg    = 0x20
)

// ErrSequence marks a wrap token whose sequence number is not the next one expected, when the
// initiator asked for sequence or replay detection. The JDK calls these "Gap token" and
// "Duplicate token"; either fails the connection.
var ErrSequence = errors.New("wrap token out of sequence")

// Context is an established security context: it wraps outgoing messages and unwraps incoming
// ones. Both directions may be used concurrently; each is serialised on its own.
type Context struct {
	et       etype.EType
	key      []byte
	acceptor bool // this side is the acceptor
	subkey   bool // the key is an acceptor subkey: tokens carry flag AcceptorSubkey
	checkSeq bool // the initiator asked for sequence or replay detection
	flags    int

	sendMu  sync.Mutex
	sendSeq uint64
	recvMu  sync.Mutex
	recvSeq uint64
}

// newContext picks the key of RFC 4121 §2: the acceptor's subkey if the AP-REP had one, else
// the initiator's subkey if the authenticator had one, else the ticket's session key.
func newContext(acceptor bool, flags int, session, initSub, accSub types.EncryptionKey, initSeq, accSeq uint64) (*Context, error) {
	key, subkey := session, false
	switch {
	case len(accSub.KeyValue) > 0:
		key, subkey = accSub, true
	case len(initSub.KeyValue) > 0:
		key = initSub
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("kerberos: encryption type %d: %w", key.KeyType, err)
	}
	if !cfxEtype(key.KeyType) {
		return nil, fmt.Errorf("kerberos: encryption type %d has no RFC 4121 wrap tokens here; use an AES type (aes256-cts-hmac-sha1-96, aes128-cts-hmac-sha1-96)", key.KeyType)
	}
	c := &Context{et: et, key: key.KeyValue, acceptor: acceptor, subkey: subkey,
		checkSeq: flags&(FlagSequence|FlagReplay) != 0, flags: flags}
	c.sendSeq, c.recvSeq = initSeq, accSeq
	if acceptor {
		c.sendSeq, c.recvSeq = accSeq, initSeq
	}
	return c, nil
}

// NewAcceptorContext is the acceptor's side of the context an AP-REQ established: flags from its
// authenticator's checksum, the ticket's session key, the authenticator's subkey (empty if it
// had none) and sequence number, and the acceptor's own sequence number (the AP-REP's, or the
// initiator's without mutual authentication). Like the JDK's acceptor it adds no subkey of its
// own, so its wrap tokens use the initiator's subkey, or the session key without one.
func NewAcceptorContext(flags int, session, initiatorSubkey types.EncryptionKey, initiatorSeq, acceptorSeq uint64) (*Context, error) {
	return newContext(true, flags, session, initiatorSubkey, types.EncryptionKey{}, initiatorSeq, acceptorSeq)
}

// cfxEtype reports whether RFC 4121 ("CFX") tokens apply: every etype newer than RC4 and DES.
func cfxEtype(id int32) bool { return id == 17 || id == 18 || id == 19 || id == 20 }

// Flags returns the GSS-API flags the initiator asked for.
func (c *Context) Flags() int { return c.flags }

// Wrap protects payload: sealed (encrypted and checksummed) when seal is true, else
// checksummed only. Each call takes the next sequence number.
func (c *Context) Wrap(payload []byte, seal bool) ([]byte, error) {
	flags, usage := byte(0), uint32(usageInitiatorSeal)
	if c.acceptor {
		flags, usage = flagSentByAcceptor, usageAcceptorSeal
	}
	if c.subkey {
		flags |= flagAcceptorSubkey
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	var tok []byte
	var err error
	if seal {
		tok, err = sealToken(c.et, c.key, usage, flags, c.sendSeq, payload)
	} else {
		tok, err = integrityToken(c.et, c.key, usage, flags, c.sendSeq, payload)
	}
	if err == nil {
		c.sendSeq++
	}
	return tok, err
}

// Unwrap checks a token from the peer and returns its payload and whether it was sealed.
func (c *Context) Unwrap(tok []byte) (payload []byte, sealed bool, err error) {
	usage := uint32(usageAcceptorSeal)
	if c.acceptor {
		usage = usageInitiatorSeal
	}
	h, err := parseWrapHeader(tok)
	if err != nil {
		return nil, false, err
	}
	if fromAcceptor := h.flags&flagSentByAcceptor != 0; fromAcceptor == c.acceptor {
		return nil, false, fmt.Errorf("%w: flag SentByAcceptor is %v on a token from the %s", ErrBadWrapToken, fromAcceptor, c.peer())
	}
	if h.flags&flagAcceptorSubkey != 0 != c.subkey {
		return nil, false, fmt.Errorf("%w: flag AcceptorSubkey is %v, the context says %v", ErrBadWrapToken, !c.subkey, c.subkey)
	}
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	h, payload, err = openToken(c.et, c.key, usage, tok)
	if err != nil {
		return nil, false, err
	}
	if c.checkSeq && h.seq != c.recvSeq {
		what := "gap"
		if h.seq < c.recvSeq {
			what = "duplicate"
		}
		return nil, false, fmt.Errorf("%w: %s token from the %s: sequence number %d, expected %d", ErrSequence, what, c.peer(), h.seq, c.recvSeq)
	}
	c.recvSeq = h.seq + 1
	return payload, h.flags&flagSealed != 0, nil
}

func (c *Context) peer() string {
	if c.acceptor {
		return "initiator"
	}
	return "acceptor"
}
