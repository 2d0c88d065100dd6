package scm

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
	"github.com/dnecho/dnecho/testsupport/wiretap"
)

// A relay between client and SCM records the lookup: under privacy neither the protocol name nor
// the container's pipeline and DataNode appear in clear; under integrity and authentication they
// do (so the relay would see them).
func TestPrivacyOnTheWire(t *testing.T) {
	k := testkdc.StartOzone(t)
	acc, err := krbacceptor.New(k.SCMKeytab, testkdc.SCMPrincipal)
	must(t, err)
	for _, tc := range []struct {
		q     hadooprpc.QOP
		clear bool
	}{{hadooprpc.QOPAuthentication, true}, {hadooprpc.QOPIntegrity, true}, {hadooprpc.QOPPrivacy, false}} {
		t.Run(tc.q.String(), func(t *testing.T) {
			s := startSCM(t, scmsim.Config{Admins: []string{"alice"}, RPC: rpcserver.Options{Kerberos: acc, Protection: []hadooprpc.QOP{tc.q}}})
			relay := wiretap.Start(t, s.Addr())
			cred, err := kerberos.Login(kerberos.LoginOptions{Principal: "alice", Keytab: k.AliceKeytab})
			must(t, err)
			defer cred.Close()
			c := newClient(t, Options{Addresses: []string{relay.Addr()}, MaxRetries: NoRetries, RPC: hadooprpc.Options{User: cred.Principal(),
				Authenticator: &hadooprpc.Kerberos{Credentials: cred, Protection: []hadooprpc.QOP{tc.q}}}})
			if _, err := c.LookupPipeline(testCtx(t), 1, LookupFreon); err != nil {
				t.Fatal(err)
			}
			c.Close()
			for _, secret := range []string{Protocol, pipelineA, "dn1.example.com"} {
				if relay.Saw(secret) != tc.clear {
					t.Errorf("%q in clear = %v, want %v", secret, !tc.clear, tc.clear)
				}
			}
		})
	}
}
