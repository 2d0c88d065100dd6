package scm

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// A server principal that is not the configured one, or no protection in common, is SCM's answer,
// not a failure to reach it: the lookup fails on the first attempt with the reason, instead of
// retrying (and failing over) until its budget runs out.
func TestAuthFailuresAreFinal(t *testing.T) {
	k := testkdc.StartOzone(t)
	acc, err := krbacceptor.New(k.SCMKeytab, testkdc.SCMPrincipal)
	must(t, err)
	s := startSCM(t, scmsim.Config{Admins: []string{"alice"}, RPC: rpcserver.Options{Kerberos: acc,
		Protection: []hadooprpc.QOP{hadooprpc.QOPAuthentication}}})
	cred, err := kerberos.Login(kerberos.LoginOptions{Principal: "alice", Keytab: k.AliceKeytab})
	must(t, err)
	defer cred.Close()
	const interval = 3 * time.Second
	for _, tc := range []struct {
		name string
		auth *hadooprpc.Kerberos
		want string
	}{
		{"server principal", &hadooprpc.Kerberos{Credentials: cred, Principal: hadooprpc.ServerPrincipal{
			Key: "hdds.scm.kerberos.principal", Configured: "scm/scm1.example.com@" + testkdc.Realm}}, "Server has invalid Kerberos principal"},
		{"protection", &hadooprpc.Kerberos{Credentials: cred, Protection: []hadooprpc.QOP{hadooprpc.QOPPrivacy}}, "no common protection layer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, Options{Addresses: []string{s.Addr(), s.Addr()}, RetryInterval: interval, MaxRetries: 5,
				RPC: hadooprpc.Options{User: cred.Principal(), Authenticator: tc.auth}})
			start := time.Now()
			_, err := c.LookupPipeline(testCtx(t), 1, LookupFreon)
			took := time.Since(start)
			var ae *hadooprpc.AuthError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an AuthError saying %q", err, tc.want)
			}
			if took >= interval {
				t.Fatalf("took %s: the lookup was retried", took)
			}
		})
	}
}
