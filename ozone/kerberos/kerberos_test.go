package kerberos

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dnecho/dnecho/internal/testkdc"
)

const testService = "scm/localhost"

// realm starts a KDC with a user and a service and returns a keytab for each.
func realm(t *testing.T) (k *testkdc.KDC, userKT, serviceKT string) {
	k = testkdc.Start(t)
	k.AddPrincipals(t, "alice", testService)
	return k, k.Keytab(t, "alice.keytab", "alice"), k.Keytab(t, "scm.keytab", testService)
}

func TestHandshakeAndWrapBothWays(t *testing.T) {
	k, userKT, serviceKT := realm(t)
	for _, src := range []string{"keytab", "ccache"} {
		t.Run(src, func(t *testing.T) {
			o := LoginOptions{Config: k.Config, Principal: "alice", Keytab: userKT}
			if src == "ccache" {
				o = LoginOptions{Config: k.Config, CCache: k.Kinit(t, "alice", userKT, "")}
			}
			cred, err := Login(o)
			if err != nil {
				t.Fatal(err)
			}
			defer cred.Close()
			if got := cred.Principal(); got != "alice@"+testkdc.Realm {
				t.Fatalf("principal %q", got)
			}
			acc, err := NewAcceptor(serviceKT, testService+"@"+testkdc.Realm)
			if err != nil {
				t.Fatal(err)
			}
			ini, tok, err := cred.Initiate(testService, FlagMutual|FlagSequence|FlagConf|FlagInteg)
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
			if _, err := acc.Accept(tok, nil); !errors.Is(err, ErrRejected) {
				t.Fatalf("replayed AP-REQ: %v", err)
			}
		})
	}
}

// exchange sends sealed and integrity tokens from one side to the other and checks order rules.
func exchange(t *testing.T, from, to *Context) {
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
		if _, _, err := to.Unwrap(tok); !errors.Is(err, ErrSequence) {
			t.Fatalf("duplicate token: %v", err)
		}
		tok[len(tok)-1] ^= 1
		if _, _, err := to.Unwrap(tok); !errors.Is(err, ErrBadWrapToken) {
			t.Fatalf("tampered token: %v", err)
		}
	}
}

func TestWrongServiceKeyIsRejected(t *testing.T) {
	k, userKT, serviceKT := realm(t)
	k.AddPrincipals(t, "om/localhost")
	omKT := k.Keytab(t, "om.keytab", "om/localhost")
	cred, err := Login(LoginOptions{Config: k.Config, Principal: "alice", Keytab: userKT})
	if err != nil {
		t.Fatal(err)
	}
	defer cred.Close()
	_, tok, err := cred.Initiate(testService, FlagMutual)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := NewAcceptor(omKT, "om/localhost@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Accept(tok, nil); !errors.Is(err, ErrRejected) {
		t.Fatalf("ticket for scm accepted by om: %v", err)
	}
	_ = serviceKT
}

func TestLoginErrors(t *testing.T) {
	k, userKT, _ := realm(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    LoginOptions
		want error
	}{
		{"no cache", LoginOptions{CCache: dir + "/none"}, ErrNoTicket},
		{"unknown principal", LoginOptions{Principal: "mallory", Keytab: userKT}, ErrLogin},
		{"keytab of another principal", LoginOptions{Principal: testService, Keytab: userKT}, ErrLogin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Config = k.Config
			c, err := Login(tc.o)
			if err == nil {
				c.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
