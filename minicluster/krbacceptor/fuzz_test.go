package krbacceptor

import (
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/dnecho/dnecho/ozone/kerberos"
)

// FuzzAccept feeds arbitrary bytes to the acceptor's AP-REQ parsing and checks: it must never
// panic, and nothing but an AP-REQ it can decrypt may be accepted.
func FuzzAccept(f *testing.F) {
	f.Add(kerberos.FrameToken(kerberos.TokenAPReq, []byte{0x6e, 0x03, 0x30, 0x01, 0x00}))
	f.Add(kerberos.FrameToken(kerberos.TokenAPRep, []byte{0x6f, 0x03, 0x30, 0x01, 0x00}))
	f.Add(kerberos.FrameToken(kerberos.TokenError, nil))
	kt := keytab.New()
	if err := kt.AddEntry("scm/localhost", "FUZZ.TEST", "secret", time.Unix(0, 0), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		f.Fatal(err)
	}
	acceptor := newAcceptor(kt, "scm/localhost", "FUZZ.TEST")
	f.Fuzz(func(t *testing.T, b []byte) {
		if a, err := acceptor.Accept(b, nil); err == nil {
			t.Fatalf("accepted a token no KDC issued: %+v", a)
		}
	})
}
