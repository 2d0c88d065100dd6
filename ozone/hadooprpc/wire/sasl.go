package wire

import (
	"errors"
	"fmt"

	"github.com/dnecho/dnecho/ozone/kerberos"
)

// MaxBuffer is the maximum buffer of the security-layer message the JDK's GSSAPI peers offer
// and select.
const MaxBuffer = 65536

// LayerMessage is the GSSAPI security-layer message (RFC 4752 §3.1): the mask of protections,
// then a 24-bit big-endian maximum buffer.
func LayerMessage(mask byte, maxBuf int) []byte {
	return []byte{mask, byte(maxBuf >> 16), byte(maxBuf >> 8), byte(maxBuf)}
}

// ParseLayer reads a security-layer message; bytes after the fourth are the authorization id.
func ParseLayer(b []byte) (mask byte, maxBuf int, err error) {
	if len(b) < 4 {
		return 0, 0, fmt.Errorf("security-layer message of %d bytes, want at least 4", len(b))
	}
	return b[0], int(b[1])<<16 | int(b[2])<<8 | int(b[3]), nil
}

// errNotSealed is an integrity-only WRAP token under privacy, which the JDK refuses.
var errNotSealed = errors.New("SASL: Privacy not protected (an unsealed token under privacy)")

// OpenWrapped unwraps the token of a SASL WRAP packet; under privacy (seal) it must have been
// sealed.
func OpenWrapped(gss *kerberos.Context, tok []byte, seal bool) ([]byte, error) {
	b, sealed, err := gss.Unwrap(tok)
	if err != nil {
		return nil, fmt.Errorf("SASL unwrap: %v", err)
	}
	if seal && !sealed {
		return nil, errNotSealed
	}
	return b, nil
}
