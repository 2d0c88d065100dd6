// Package token encodes and decodes Hadoop delegation-style tokens as Ozone
// uses them (container and block tokens), and signs and verifies container
// tokens for the emulators.
//
// Wire facts: docs/ozone-scm.md#hadoop-tokens; Hadoop:
// hadoop-common-project/hadoop-common/src/main/java/org/apache/hadoop/security/token/Token.java.
package token

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// Token is a Hadoop token: an opaque identifier, its password (a MAC over the
// identifier), a kind and a service name.
type Token struct {
	Identifier []byte
	Password   []byte
	Kind       string
	Service    string
}

// ErrMalformed is wrapped by every Decode/ParseWritable error, so callers can
// tell "not a token" from other failures.
var ErrMalformed = errors.New("token: malformed")

// Writable returns the Hadoop Writable form of t: identifier, password, kind
// and service, each prefixed by its VInt length.
func (t Token) Writable() []byte {
	b := make([]byte, 0, 4+len(t.Identifier)+len(t.Password)+len(t.Kind)+len(t.Service)+8)
	b = appendBytes(b, t.Identifier)
	b = appendBytes(b, t.Password)
	b = appendBytes(b, []byte(t.Kind))
	return appendBytes(b, []byte(t.Service))
}

func appendBytes(b, field []byte) []byte {
	return append(AppendVInt(b, int64(len(field))), field...)
}

// ParseWritable decodes the Writable form. Bytes after the service are
// ignored, as Hadoop's Token.readFields ignores them.
func ParseWritable(b []byte) (Token, error) {
	var parts [4][]byte
	for i, name := range [4]string{"identifier", "password", "kind", "service"} {
		n, used, err := readVInt32(b)
		if err != nil {
			return Token{}, fmt.Errorf("%w: %s length: %v", ErrMalformed, name, err)
		}
		b = b[used:]
		if n < 0 {
			return Token{}, fmt.Errorf("%w: %s length %d is negative", ErrMalformed, name, n)
		}
		// Compare before slicing so a huge declared length never allocates.
		if int64(n) > int64(len(b)) {
			return Token{}, fmt.Errorf("%w: %s needs %d bytes, %d left (end of file)", ErrMalformed, name, n, len(b))
		}
		parts[i] = append([]byte{}, b[:n]...)
		b = b[n:]
	}
	return Token{Identifier: parts[0], Password: parts[1], Kind: string(parts[2]), Service: string(parts[3])}, nil
}

// Encode returns the URL string form Ozone passes around (the DataNode's
// encodedToken): the Writable bytes in URL-safe base64 without padding.
func Encode(t Token) string {
	return base64.RawURLEncoding.EncodeToString(t.Writable())
}

// Decode parses a token URL string as leniently as Hadoop does (Apache
// commons-codec Base64 in URL-safe mode): both alphabets are accepted,
// characters outside them are skipped, the first '=' ends the data, and a
// dangling final character is dropped. A string whose bytes run out before
// the four fields are read is an error, as it is on the DataNode.
func Decode(s string) (Token, error) {
	raw, err := decodeLenient(s)
	if err != nil {
		return Token{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return ParseWritable(raw)
}

func decodeLenient(s string) ([]byte, error) {
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			i = len(s) // padding marks the end of the data
			continue
		case c == '+':
			c = '-'
		case c == '/':
			c = '_'
		}
		if isURLBase64(c) {
			clean = append(clean, c)
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1] // six bits make no byte
	}
	return base64.RawURLEncoding.DecodeString(string(clean))
}

func isURLBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// FromProto converts the hadoop.hdds.TokenProto SCM returns.
func FromProto(p *hddspb.TokenProto) Token {
	return Token{
		Identifier: p.GetIdentifier(),
		Password:   p.GetPassword(),
		Kind:       p.GetKind(),
		Service:    p.GetService(),
	}
}

// Proto converts t to hadoop.hdds.TokenProto (all four fields set, even when
// empty, because they are required in proto2).
func (t Token) Proto() *hddspb.TokenProto {
	id, pw := t.Identifier, t.Password
	if id == nil {
		id = []byte{}
	}
	if pw == nil {
		pw = []byte{}
	}
	return &hddspb.TokenProto{Identifier: id, Password: pw, Kind: &t.Kind, Service: &t.Service}
}
