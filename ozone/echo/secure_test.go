package echo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testkdc"
)

// secureCluster starts a Kerberized cluster (tokens, TLS, alice the only administrator).
func secureCluster(t *testing.T, k *testkdc.Ozone, prot ...hadooprpc.QOP) (*minicluster.Cluster, string) {
	return minitest.Start(t, minicluster.Options{Tokens: true, TLS: true, Admins: []string{"alice"}, Security: &minicluster.Security{
		SCMPrincipal: testkdc.SCMPrincipal, SCMKeytab: k.SCMKeytab, OMPrincipal: testkdc.OMPrincipal, OMKeytab: k.OMKeytab, Protection: prot}})
}

// The whole secure path: Kerberos to SCM (each protection) and OM, the container token, TLS with
// the CA certificates from the OM; from a keytab and from a kinit ticket cache.
func TestSecureClusterEveryProtection(t *testing.T) {
	k := testkdc.StartOzone(t)
	for _, q := range []hadooprpc.QOP{hadooprpc.QOPAuthentication, hadooprpc.QOPIntegrity, hadooprpc.QOPPrivacy} {
		t.Run(q.String(), func(t *testing.T) {
			c, dir := secureCluster(t, k, q)
			for _, login := range []string{"keytab", "ccache"} {
				s := Spec{Cluster: Cluster{ConfDir: dir}, ContainerID: 1}
				if login == "keytab" {
					s.Cluster.Principal, s.Cluster.Keytab = "alice", k.AliceKeytab
				} else {
					t.Setenv(kerberos.CCacheEnv, k.Kinit(t, "alice", k.AliceKeytab, ""))
				}
				sess := open(t, s)
				if pl := sess.Placement(); pl.Token == "" || len(pl.CAPEM) == 0 || pl.User != "alice@"+testkdc.Realm {
					t.Fatalf("%s: token %q, %d CA bytes, user %q", login, pl.Token, len(pl.CAPEM), pl.User)
				}
				for i := 0; i < 3; i++ {
					if r := sess.Echo(context.Background(), uint64(i)); r.Err != nil {
						t.Fatalf("%s: echo: %v", login, r.Err)
					}
				}
			}
			if c.DataNodes()[0].Stats().Successes == 0 {
				t.Error("no call reached the first DataNode")
			}
		})
	}
}

func TestSecureClusterRefusals(t *testing.T) {
	k := testkdc.StartOzone(t)
	_, dir := secureCluster(t, k, hadooprpc.QOPAuthentication)
	for _, tc := range []struct {
		name string
		s    Spec
		want string
	}{
		{"not an administrator", Spec{Cluster: Cluster{ConfDir: dir, Principal: "bob", Keytab: k.BobKeytab}},
			"GetContainer and GetContainerToken need SCM admin rights"},
		{"protection mismatch", Spec{Cluster: Cluster{ConfDir: dir, Principal: "alice", Keytab: k.AliceKeytab,
			Overrides: []string{"hadoop.rpc.protection=privacy"}}}, "no common protection layer"},
		{"server principal mismatch", Spec{Cluster: Cluster{ConfDir: dir, Principal: "alice", Keytab: k.AliceKeytab,
			Overrides: []string{"hdds.scm.kerberos.principal=scm/scm1.example.com@" + testkdc.Realm}}}, "Server has invalid Kerberos principal"},
		{"wrong keytab", Spec{Cluster: Cluster{ConfDir: dir, Principal: "alice", Keytab: k.BobKeytab}}, "Kerberos login"},
		{"no ticket", Spec{Cluster: Cluster{ConfDir: dir}}, "run kinit"},
		{"keytab without principal", Spec{Cluster: Cluster{ConfDir: dir, Keytab: k.AliceKeytab}}, "Principal: is needed with a keytab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(kerberos.CCacheEnv, t.TempDir()+"/none")
			tc.s.ContainerID, tc.s.LookupTimeout = 1, 20e9
			tc.s.Cluster.Overrides = append(tc.s.Cluster.Overrides, "hdds.scmclient.max.retry.timeout=0", "hdds.scmclient.failover.max.retry=0")
			sess, err := Open(context.Background(), tc.s, nil)
			if err == nil {
				sess.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
			var denied *scm.AccessDeniedError
			if tc.name == "not an administrator" && !errors.As(err, &denied) {
				t.Fatalf("not an AccessDeniedError: %v", err)
			}
		})
	}
}

// BenchmarkSecureOpen is the cost of one secure lookup per protection: Kerberos login from a
// keytab, the SCM calls (GetContainer, ListPipelines, GetContainerToken) and the OM's CA
// certificates, each connection with its own handshake.
func BenchmarkSecureOpen(b *testing.B) {
	k := testkdc.Start(b)
	k.AddPrincipals(b, "alice", "scm/localhost", "om/localhost")
	b.Setenv(kerberos.ConfigEnv, k.Config)
	aliceKT, scmKT, omKT := k.Keytab(b, "alice.keytab", "alice"), k.Keytab(b, "scm.keytab", "scm/localhost"), k.Keytab(b, "om.keytab", "om/localhost")
	for _, q := range []hadooprpc.QOP{hadooprpc.QOPAuthentication, hadooprpc.QOPIntegrity, hadooprpc.QOPPrivacy} {
		b.Run(q.String(), func(b *testing.B) {
			c, err := minicluster.Start(minicluster.Options{Tokens: true, TLS: true, Admins: []string{"alice"}, Security: &minicluster.Security{
				SCMPrincipal: "scm/localhost@" + testkdc.Realm, SCMKeytab: scmKT, OMPrincipal: "om/localhost@" + testkdc.Realm, OMKeytab: omKT,
				Protection: []hadooprpc.QOP{q}}})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			dir := b.TempDir()
			if err := c.WriteConf(dir); err != nil {
				b.Fatal(err)
			}
			s := Spec{Cluster: Cluster{ConfDir: dir, Principal: "alice", Keytab: aliceKT}, ContainerID: 1}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sess, err := Open(context.Background(), s, nil)
				if err != nil {
					b.Fatal(err)
				}
				sess.Close()
			}
		})
	}
}
