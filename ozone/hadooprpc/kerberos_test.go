package hadooprpc_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
	"github.com/dnecho/dnecho/testsupport/wiretap"
)

// The protections, short.
type qop = hadooprpc.QOP

const (
	authentication = hadooprpc.QOPAuthentication
	integrity      = hadooprpc.QOPIntegrity
	privacy        = hadooprpc.QOPPrivacy
)

// secureRealm is a KDC with a user and the SCM's service principal.
type secureRealm struct {
	kdc       *testkdc.KDC
	userKT    string
	serviceKT string
}

func newSecureRealm(t *testing.T) *secureRealm { return newSecureRealmB(t) }

func newSecureRealmB(t testing.TB) *secureRealm {
	k := testkdc.Start(t)
	k.AddPrincipals(t, "alice", "scm/localhost")
	return &secureRealm{kdc: k, userKT: k.Keytab(t, "alice.keytab", "alice"), serviceKT: k.Keytab(t, "scm.keytab", "scm/localhost")}
}

func (r *secureRealm) login(t testing.TB) *kerberos.Credentials {
	t.Helper()
	c, err := kerberos.Login(kerberos.LoginOptions{Config: r.kdc.Config, Principal: "alice", Keytab: r.userKT})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func (r *secureRealm) server(t *testing.T, prot ...qop) string { return r.serverB(t, prot...) }

func (r *secureRealm) serverB(t testing.TB, prot ...qop) string {
	t.Helper()
	acc, err := krbacceptor.New(r.serviceKT, "scm/localhost@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	return echoServer(t, rpcserver.Options{Kerberos: acc, Protection: prot}, nil)
}

func (r *secureRealm) client(t *testing.T, addr string, prot ...qop) *hadooprpc.Client {
	return r.clientB(t, addr, prot...)
}

func (r *secureRealm) clientB(t testing.TB, addr string, prot ...qop) *hadooprpc.Client {
	t.Helper()
	cred := r.login(t)
	return newTestClient(t, addr, hadooprpc.Options{User: cred.Principal(), Authenticator: &hadooprpc.Kerberos{
		Credentials: cred, Protection: prot,
		Principal: hadooprpc.ServerPrincipal{Key: "hdds.scm.kerberos.principal", Configured: "scm/_HOST@" + testkdc.Realm},
	}})
}

func TestKerberosEveryProtection(t *testing.T) {
	r := newSecureRealm(t)
	secret := "container-4242-" + strings.Repeat("x", 150<<10) // spans several wrap packets
	for _, tc := range []struct {
		name           string
		server, client []qop
		clear          bool
	}{
		{"authentication", nil, nil, true},
		{"integrity", []qop{integrity}, []qop{integrity}, true},
		{"privacy", []qop{privacy}, []qop{privacy}, false},
		{"client prefers privacy", []qop{authentication, integrity, privacy}, []qop{privacy, authentication}, false},
		{"client prefers authentication", []qop{privacy, authentication}, []qop{authentication, privacy}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rl := wiretap.Start(t, r.server(t, tc.server...))
			c := r.client(t, rl.Addr(), tc.client...)
			ctx := testCtx(t)
			var wg sync.WaitGroup
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := echo(ctx, c, secret, "")
					if err != nil || got != secret {
						t.Errorf("echo: %d bytes, %v", len(got), err)
					}
				}()
			}
			wg.Wait()
			c.Close()
			for _, s := range []string{echoProtocol, "container-4242"} {
				if rl.Saw(s) != tc.clear {
					t.Errorf("%q in clear on the wire = %v, want %v", s, !tc.clear, tc.clear)
				}
			}
		})
	}
}

func TestKerberosFailures(t *testing.T) {
	r := newSecureRealm(t)
	for _, tc := range []struct {
		name   string
		server []qop
		client []qop
		change func(*hadooprpc.Options)
		want   string
	}{
		{"protection mismatch", []qop{authentication}, []qop{privacy}, nil, "no common protection layer"},
		{"server principal mismatch", nil, nil, func(o *hadooprpc.Options) {
			o.Authenticator.(*hadooprpc.Kerberos).Principal.Configured = "scm/scm1.example.com@" + testkdc.Realm
		}, "Server has invalid Kerberos principal: scm/localhost@DNECHO.TEST, expecting: scm/scm1.example.com@DNECHO.TEST"},
		{"impersonation", nil, nil, func(o *hadooprpc.Options) { o.User = "bob" }, "is not allowed to impersonate bob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := r.server(t, tc.server...)
			cred := r.login(t)
			o := hadooprpc.Options{ClientID: testClientID, User: cred.Principal(), Authenticator: &hadooprpc.Kerberos{
				Credentials: cred, Protection: tc.client,
				Principal: hadooprpc.ServerPrincipal{Key: "hdds.scm.kerberos.principal", Configured: "scm/_HOST@" + testkdc.Realm}}}
			if tc.change != nil {
				tc.change(&o)
			}
			c := newTestClient(t, addr, o)
			_, err := echo(testCtx(t), c, "hi", "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestKerberosClientRefusesSimpleServer(t *testing.T) {
	r := newSecureRealm(t)
	c := r.client(t, echoServer(t, rpcserver.Options{}, nil))
	_, err := echo(testCtx(t), c, "hi", "")
	if err == nil || !strings.Contains(err.Error(), "does not fall back") {
		t.Fatalf("got %v", err)
	}
}

func TestKerberosSkipsTokenOffer(t *testing.T) {
	r := newSecureRealm(t)
	acc, err := krbacceptor.New(r.serviceKT, "scm/localhost@"+testkdc.Realm)
	if err != nil {
		t.Fatal(err)
	}
	c := r.client(t, echoServer(t, rpcserver.Options{Kerberos: acc, OfferToken: true, Protection: []qop{privacy}}, nil), privacy)
	if got, err := echo(testCtx(t), c, "hi", ""); err != nil || got != "hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
}
