package kerberos

import (
	"bytes"
	"errors"
	"fmt"
)

// GSS-API token framing (RFC 2743 §3.1, RFC 4121 §4.1): [APPLICATION 0] { mech OID, token id,
// inner token }. The inner token of an AP-REQ/AP-REP/KRB-ERROR is its Kerberos DER encoding.
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// TokenID is the two-byte id after the mechanism of an initial context token (RFC 4121 §4.1).
type TokenID uint16

// The token ids of the initial context tokens.
const (
	// TokenAPReq is the initiator's AP-REQ.
	TokenAPReq TokenID = 0x0100
	// TokenAPRep is the acceptor's AP-REP.
	TokenAPRep TokenID = 0x0200
	// TokenError is the acceptor's KRB-ERROR.
	TokenError TokenID = 0x0300
)

// errBadToken marks bytes that are not a GSS-API Kerberos token.
var errBadToken = errors.New("not a Kerberos GSS-API token")

// FrameToken wraps an inner Kerberos message in the GSS-API initial-context framing.
func FrameToken(id TokenID, inner []byte) []byte {
	body := make([]byte, 0, len(krb5OID)+2+len(inner))
	body = append(body, krb5OID...)
	body = append(body, byte(id>>8), byte(id))
	body = append(body, inner...)
	out := append([]byte{0x60}, derLength(len(body))...)
	return append(out, body...)
}

// ParseToken splits a framed initial context token into its token id and inner message.
func ParseToken(b []byte) (id TokenID, inner []byte, err error) {
	if len(b) < 2 || b[0] != 0x60 {
		return id, nil, fmt.Errorf("%w: no [APPLICATION 0] tag", errBadToken)
	}
	n, used, err := readDERLength(b[1:])
	if err != nil {
		return id, nil, fmt.Errorf("%w: %v", errBadToken, err)
	}
	body := b[1+used:]
	if n != len(body) {
		return id, nil, fmt.Errorf("%w: length %d, %d bytes follow", errBadToken, n, len(body))
	}
	if !bytes.HasPrefix(body, krb5OID) {
		return id, nil, fmt.Errorf("%w: mechanism is not Kerberos V5 (1.2.840.113554.1.2.2)", errBadToken)
	}
	body = body[len(krb5OID):]
	if len(body) < 2 {
		return id, nil, fmt.Errorf("%w: no token id", errBadToken)
	}
	return TokenID(body[0])<<8 | TokenID(body[1]), body[2:], nil
}

func derLength(n int) []byte {
	switch {
	case n < 0x80:
		return []byte{byte(n)}
	case n <= 0xff:
		return []byte{0x81, byte(n)}
	case n <= 0xffff:
		return []byte{0x82, byte(n >> 8), byte(n)}
	case n <= 0xffffff:
		return []byte{0x83, byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return []byte{0x84, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// readDERLength decodes a definite DER length of at most four bytes.
func readDERLength(b []byte) (n, used int, err error) {
	if len(b) == 0 {
		return 0, 0, errors.New("missing length")
	}
	if b[0] < 0x80 {
		return int(b[0]), 1, nil
	}
	k := int(b[0] & 0x7f)
	if k == 0 || k > 4 || len(b) < 1+k {
		return 0, 0, errors.New("bad length")
	}
	for _, c := range b[1 : 1+k] {
		n = n<<8 | int(c)
	}
	if n < 0 {
		return 0, 0, errors.New("bad length")
	}
	return n, 1 + k, nil
}
