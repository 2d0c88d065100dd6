package kerberos

import (
	"testing"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/types"
)

// fuzzKey is a fixed AES-256 key for contexts built without a KDC.
var fuzzKey = types.EncryptionKey{KeyType: etypeID.AES256_CTS_HMAC_SHA1_96, KeyValue: make([]byte, 32)}

// FuzzTokens feeds arbitrary bytes to every decoder here of tokens a peer sends: the initiator's
// AP-REP check and wrap-token unwrapping on both sides. None may panic. (The acceptor's AP-REQ
// parsing is minicluster/krbacceptor's FuzzAccept.)
func FuzzTokens(f *testing.F) {
	ini, err := newContext(false, FlagSequence, fuzzKey, types.EncryptionKey{}, types.EncryptionKey{}, 7, 9)
	if err != nil {
		f.Fatal(err)
	}
	acc, _ := newContext(true, FlagSequence, fuzzKey, types.EncryptionKey{}, types.EncryptionKey{}, 7, 9)
	for _, seal := range []bool{false, true} {
		for _, from := range []*Context{ini, acc} {
			tok, err := from.Wrap([]byte("seed payload"), seal)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(tok)
			rot := append(append(append([]byte{}, tok[:16]...), tok[len(tok)-5:]...), tok[16:len(tok)-5]...)
			rot[7] = 5 // RRC 5: the same token rotated right by five bytes
			f.Add(rot)
		}
	}
	f.Add(FrameToken(TokenAPReq, []byte{0x6e, 0x03, 0x30, 0x01, 0x00}))
	f.Add(FrameToken(TokenAPRep, []byte{0x6f, 0x03, 0x30, 0x01, 0x00}))
	f.Add(FrameToken(TokenError, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, _ := newContext(false, FlagSequence, fuzzKey, types.EncryptionKey{}, types.EncryptionKey{}, 7, 9)
		c, _ := newContext(true, FlagSequence, fuzzKey, types.EncryptionKey{}, types.EncryptionKey{}, 7, 9)
		_, _, _ = a.Unwrap(b)
		_, _, _ = c.Unwrap(b)
		_, _ = (&Initiator{session: fuzzKey}).Complete(b)
	})
}
