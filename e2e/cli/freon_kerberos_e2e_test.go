package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testkdc"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// realm is a KDC with alice (the tests' administrator), bob (not one) and the service principals;
// no ticket cache until a test makes one.
type realm struct{ *testkdc.Ozone }

func newRealm(t *testing.T) *realm {
	k := testkdc.StartOzone(t)
	t.Setenv(kerberos.CCacheEnv, filepath.Join(t.TempDir(), "no-cache"))
	return &realm{k}
}

func (r *realm) secureCluster(t *testing.T, o minicluster.Options, prot ...hadooprpc.QOP) string {
	o.Tokens, o.TLS, o.Admins = true, true, []string{"alice"}
	o.Security = &minicluster.Security{SCMPrincipal: testkdc.SCMPrincipal, SCMKeytab: r.SCMKeytab,
		OMPrincipal: testkdc.OMPrincipal, OMKeytab: r.OMKeytab, Protection: prot}
	_, conf := minitest.Start(t, o)
	return conf
}

// `dnecho cluster` with the keys a real SCM and OM read, then freon after kinit, with a keytab,
// and the JavaScript module, end to end.
func TestSecureClusterCommandFreonAndJS(t *testing.T) {
	r := newRealm(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, dnechoBinary(t), "cluster", "--conf-dir", dir, "--tokens", "--tls",
		"-D", "ozone.security.enabled=true", "-D", "hadoop.security.authentication=kerberos", "-D", "hadoop.rpc.protection=privacy",
		"-D", "hdds.scm.kerberos.principal=scm/_HOST@"+testkdc.Realm, "-D", "hdds.scm.kerberos.keytab.file="+r.SCMKeytab,
		"-D", "ozone.om.kerberos.principal=om/localhost", "-D", "ozone.om.kerberos.keytab.file="+r.OMKeytab, "-D", "ozone.administrators=alice")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	info := waitClusterJSON(t, dir, &out)
	if !info.Kerberos || !info.TLS || len(info.OM) != 1 {
		t.Fatalf("cluster.json: %+v", info)
	}
	t.Setenv(kerberos.CCacheEnv, r.Kinit(t, "alice", r.AliceKeytab, ""))
	res := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", "20", "-t", "2")
	if res.code != 0 {
		t.Fatalf("freon after kinit: exit %d\n%s", res.code, res.all())
	}
	mustContain(t, res, "Successful executions: 20")
	t.Setenv(kerberos.CCacheEnv, filepath.Join(t.TempDir(), "none"))
	res = dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", "5", "--principal", "alice", "--keytab", r.AliceKeytab)
	if res.code != 0 {
		t.Fatalf("freon with a keytab: exit %d\n%s", res.code, res.all())
	}
	script := writeRunScript(t, "secure.js", `import dnecho from 'k6/x/dnecho';
export const options = { iterations: 5 };
const client = new dnecho.Client({ containerId: 1, principal: __ENV.PRINCIPAL, keytab: __ENV.KEYTAB });
export default function () { const r = client.echo(); if (!r.ok) throw new Error(r.error); }`)
	res = dnecho(t, 60*time.Second, "run", "-q", "--conf", dir, "-e", "PRINCIPAL=alice", "-e", "KEYTAB="+r.AliceKeytab, script)
	if res.code != 0 {
		t.Fatalf("dnecho run with a keytab: exit %d\n%s", res.code, res.all())
	}
	t.Setenv(kerberos.CCacheEnv, r.Kinit(t, "alice", r.AliceKeytab, ""))
	res = dnecho(t, 60*time.Second, "run", "-q", "--conf", dir, script)
	if res.code != 0 {
		t.Fatalf("dnecho run after kinit: exit %d\n%s", res.code, res.all())
	}
}

func waitClusterJSON(t *testing.T, dir string, out *strings.Builder) minicluster.Info {
	var b []byte
	if err := testwait.Until(60*time.Second, "cluster.json from dnecho cluster", func() bool {
		var err error
		b, err = os.ReadFile(filepath.Join(dir, minicluster.ClusterFile))
		return err == nil
	}); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	var in minicluster.Info
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// freon against the secure emulator for each protection, from a ticket cache and a keytab.
func TestFreonKerberosEveryProtection(t *testing.T) {
	r := newRealm(t)
	for _, q := range []hadooprpc.QOP{hadooprpc.QOPAuthentication, hadooprpc.QOPIntegrity, hadooprpc.QOPPrivacy} {
		t.Run(q.String(), func(t *testing.T) {
			conf := r.secureCluster(t, minicluster.Options{}, q)
			t.Setenv(kerberos.CCacheEnv, r.Kinit(t, "alice", r.AliceKeytab, ""))
			res := dnecho(t, 60*time.Second, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "10", "-t", "2")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.all())
			}
			mustContain(t, res, "Successful executions: 10")
		})
	}
}

// Each refusal ends freon with one clear line and a non-zero exit, in bounded time.
func TestFreonKerberosRefusals(t *testing.T) {
	r := newRealm(t)
	conf := r.secureCluster(t, minicluster.Options{}, hadooprpc.QOPAuthentication)
	nameOnly := r.secureCluster(t, minicluster.Options{TLSNameOnly: true}, hadooprpc.QOPAuthentication)
	otherCA := filepath.Join(t.TempDir(), "other.pem")
	_, plain := minitest.Start(t, minicluster.Options{TLS: true})
	if b, err := os.ReadFile(filepath.Join(plain, minicluster.CAFile)); err != nil || os.WriteFile(otherCA, b, 0o644) != nil {
		t.Fatal(err)
	}
	expired := r.Kinit(t, "alice", r.AliceKeytab, "2s")
	alice := []string{"--principal", "alice", "--keytab", r.AliceKeytab}
	fast := []string{"-D", "hdds.scmclient.max.retry.timeout=0", "-D", "hdds.scmclient.failover.max.retry=0"}
	for _, tc := range []struct {
		name, ccache, conf string
		args               []string
		want               string
	}{
		{"no ticket", "", conf, nil, "run kinit"},
		{"expired ticket", expired, conf, nil, "expired"},
		{"wrong keytab", "", conf, []string{"--principal", "alice", "--keytab", r.BobKeytab}, "Kerberos login"},
		{"unknown principal", "", conf, []string{"--principal", "mallory", "--keytab", r.AliceKeytab}, "Kerberos login"},
		{"server principal mismatch", "", conf, append(alice, "-D", "hdds.scm.kerberos.principal=scm/scm1.example.com@"+testkdc.Realm),
			"Server has invalid Kerberos principal"},
		{"protection mismatch", "", conf, append(alice, "-D", "hadoop.rpc.protection=privacy"), "no common protection layer"},
		{"untrusted CA", "", conf, append(alice, "--tls-ca", otherCA), "certificate signed by unknown authority"},
		{"DataNode name mismatch", "", nameOnly, alice, "doesn't contain any IP SANs"},
		{"not an administrator", "", conf, []string{"--principal", "bob", "--keytab", r.BobKeytab},
			"GetContainer and GetContainerToken need SCM admin rights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ccache != "" {
				t.Setenv(kerberos.CCacheEnv, tc.ccache)
				waitExpired(t, r, tc.ccache)
			}
			args := append([]string{"freon", "dn-echo", "--conf", tc.conf, "--container-id", "1", "-n", "2", "--no-retry"}, fast...)
			res := dnecho(t, 60*time.Second, append(args, tc.args...)...)
			if res.code == 0 || !strings.Contains(res.all(), tc.want) {
				t.Fatalf("exit %d, want non-zero and %q\n%s", res.code, tc.want, res.all())
			}
			if res.took > 30*time.Second {
				t.Errorf("took %s", res.took)
			}
		})
	}
	t.Run("KDC down", func(t *testing.T) {
		r.Stop()
		res := dnecho(t, 60*time.Second, append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1"}, alice...)...)
		if res.code == 0 || !strings.Contains(res.all(), "Kerberos login") {
			t.Fatalf("exit %d\n%s", res.code, res.all())
		}
	})
}

// waitExpired waits until a short-lived ticket cache has expired (klist -s fails).
func waitExpired(t *testing.T, r *realm, cache string) {
	testwait.Eventually(t, 30*time.Second, "the 2-second ticket expired", func() bool { return !r.Valid(cache) })
}
