package krbacceptor

import (
	"errors"
	"testing"

	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// The acceptor refuses a ticket for another service, an AP-REQ it has seen, and tokens that are
// not AP-REQs, each as ErrRejected.
func TestAcceptRejects(t *testing.T) {
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", "scm/localhost", "om/localhost")
	scmKT, omKT := k.Keytab(t, "scm.keytab", "scm/localhost"), k.Keytab(t, "om.keytab", "om/localhost")
	cred, err := kerberos.Login(kerberos.LoginOptions{Config: k.Config, Principal: "alice", Keytab: k.Keytab(t, "alice.keytab", "alice")})
	if err != nil {
		t.Fatal(err)
	}
	defer cred.Close()
	apReq := func(t *testing.T) []byte {
		_, tok, err := cred.Initiate("scm/localhost", kerberos.FlagMutual)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	scm, om := newTestAcceptor(t, scmKT, "scm/localhost"), newTestAcceptor(t, omKT, "om/localhost")
	for _, tc := range []struct {
		name   string
		acc    *Acceptor
		tokens func(t *testing.T) [][]byte // the last one must be refused
	}{
		{"ticket for another service", om, func(t *testing.T) [][]byte { return [][]byte{apReq(t)} }},
		{"replayed AP-REQ", scm, func(t *testing.T) [][]byte { tok := apReq(t); return [][]byte{tok, tok} }},
		{"not a GSS-API token", scm, func(*testing.T) [][]byte { return [][]byte{[]byte("hello")} }},
		{"an AP-REP", scm, func(*testing.T) [][]byte {
			return [][]byte{kerberos.FrameToken(kerberos.TokenAPRep, []byte{0x6f, 0x03, 0x30, 0x01, 0x00})}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks := tc.tokens(t)
			for _, tok := range toks[:len(toks)-1] {
				if _, err := tc.acc.Accept(tok, nil); err != nil {
					t.Fatalf("first AP-REQ: %v", err)
				}
			}
			if _, err := tc.acc.Accept(toks[len(toks)-1], nil); !errors.Is(err, ErrRejected) {
				t.Fatalf("err = %v, want ErrRejected", err)
			}
		})
	}
}

func newTestAcceptor(t *testing.T, keytab, service string) *Acceptor {
	t.Helper()
	a, err := New(keytab, service+"@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
