package kerberos_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// The initiator's AP-REQ, accepted by the emulator's acceptor, and its AP-REP, checked by the
// initiator, give both sides one context: each unwraps what the other wraps.
func TestHandshakeAndWrapBothWays(t *testing.T) {
	const service = "scm/localhost"
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", service)
	userKT, serviceKT := k.Keytab(t, "alice.keytab", "alice"), k.Keytab(t, "scm.keytab", service)
	for _, src := range []string{"keytab", "ccache"} {
		t.Run(src, func(t *testing.T) {
			o := kerberos.LoginOptions{Config: k.Config, Principal: "alice", Keytab: userKT}
			if src == "ccache" {
				o = kerberos.LoginOptions{Config: k.Config, CCache: k.Kinit(t, "alice", userKT, "")}
			}
			cred, err := kerberos.Login(o)
			if err != nil {
				t.Fatal(err)
			}
			defer cred.Close()
			if got := cred.Principal(); got != "alice@"+testkdc.Realm {
				t.Fatalf("principal %q", got)
			}
			acc, err := krbacceptor.New(serviceKT, service+"@"+testkdc.Realm)
			if err != nil {
				t.Fatal(err)
			}
			flags := kerberos.FlagMutual | kerberos.FlagSequence | kerberos.FlagConf | kerberos.FlagInteg
			ini, tok, err := cred.Initiate(service, flags)
			if err != nil {
				t.Fatal(err)
			}
			a, err := acc.Accept(tok, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Client != "alice@"+testkdc.Realm || a.Reply == nil {
				t.Fatalf("accepted %+v", a)
			}
			c, err := ini.Complete(a.Reply)
			if err != nil {
				t.Fatal(err)
			}
			exchange(t, c, a.Context)
			exchange(t, a.Context, c)
		})
	}
}

// exchange sends sealed and integrity tokens from one side to the other and checks order rules.
func exchange(t *testing.T, from, to *kerberos.Context) {
	t.Helper()
	for _, seal := range []bool{true, false, true} {
		msg := []byte("hello, wrapped world")
		tok, err := from.Wrap(msg, seal)
		if err != nil {
			t.Fatal(err)
		}
		if seal == bytes.Contains(tok, msg) {
			t.Fatalf("seal=%v: payload in clear = %v", seal, !seal)
		}
		got, sealed, err := to.Unwrap(tok)
		if err != nil || sealed != seal || !bytes.Equal(got, msg) {
			t.Fatalf("unwrap: %q sealed=%v err=%v", got, sealed, err)
		}
		if _, _, err := to.Unwrap(tok); !errors.Is(err, kerberos.ErrSequence) {
			t.Fatalf("duplicate token: %v", err)
		}
		tok[len(tok)-1] ^= 1
		if _, _, err := to.Unwrap(tok); !errors.Is(err, kerberos.ErrBadWrapToken) {
			t.Fatalf("tampered token: %v", err)
		}
	}
}
