package cli

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/testsupport/testkdc"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// An empty ticket cache, a damaged keytab or krb5.conf: one error line naming the file, a non-zero
// exit, no stack trace and never the keytab's keys.
func TestFreonKerberosDamagedFiles(t *testing.T) {
	r := newRealm(t)
	conf := r.secureCluster(t, minicluster.Options{}, hadooprpc.QOPAuthentication)
	dir := t.TempDir()
	kt, err := keytab.Load(r.AliceKeytab)
	if err != nil {
		t.Fatal(err)
	}
	key := kt.Entries[0].Key.KeyValue
	ktBytes, err := os.ReadFile(r.AliceKeytab)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty-cache", nil)
	truncated := write("truncated.keytab", ktBytes[:len(ktBytes)-5])
	badConf := write("krb5.conf", []byte("[realms]\n DNECHO.TEST = {\n kdc\n }\n"))
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"empty ticket cache", map[string]string{kerberos.CCacheEnv: "FILE:" + empty}, nil, "ticket cache " + empty + ": is empty"},
		{"truncated keytab", nil, []string{"--principal", "alice", "--keytab", truncated}, "keytab " + truncated + ": truncated or damaged"},
		{"malformed krb5.conf", map[string]string{kerberos.ConfigEnv: badConf}, []string{"--principal", "alice", "--keytab", r.AliceKeytab},
			"configuration " + badConf + ": "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			res := dnecho(t, 30*time.Second, append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1"}, tc.args...)...)
			if res.code == 0 || !strings.Contains(res.stderr, tc.want) || res.took > 10*time.Second {
				t.Fatalf("exit %d after %s, want non-zero at once with %q\n%s", res.code, res.took, tc.want, res.all())
			}
			for _, bad := range []string{"goroutine ", "panic", string(key), hex.EncodeToString(key)} {
				if strings.Contains(res.all(), bad) {
					t.Errorf("output holds %q:\n%s", bad, res.all())
				}
			}
			if n := strings.Count(res.stderr, "error:"); n != 1 {
				t.Errorf("%d error lines:\n%s", n, res.stderr)
			}
		})
	}
}

// A server principal or protection that does not match is SCM's final answer: freon fails at once
// with the reason, with the default retry settings (no retries until their budget is spent).
func TestFreonKerberosMismatchIsFinal(t *testing.T) {
	r := newRealm(t)
	conf := r.secureCluster(t, minicluster.Options{}, hadooprpc.QOPAuthentication)
	alice := []string{"--principal", "alice", "--keytab", r.AliceKeytab}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"server principal", []string{"-D", "hdds.scm.kerberos.principal=scm/scm1.example.com@" + testkdc.Realm}, "Server has invalid Kerberos principal"},
		{"protection", []string{"-D", "hadoop.rpc.protection=privacy"}, "no common protection layer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "1"}, alice...)
			res := dnecho(t, 60*time.Second, append(args, tc.args...)...)
			if res.code == 0 || !strings.Contains(res.stderr, tc.want) {
				t.Fatalf("exit %d, want non-zero and %q\n%s", res.code, tc.want, res.all())
			}
			if res.took > 10*time.Second || strings.Contains(res.all(), "still waiting for SCM") {
				t.Fatalf("took %s: the answer was retried\n%s", res.took, res.all())
			}
		})
	}
}

// Ctrl-C while a keytab login waits for a KDC that never answers exits 130 at once.
func TestFreonInterruptDuringKerberosLogin(t *testing.T) {
	kdc := testkit.NewSilent(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	krb5 := "[libdefaults]\n default_realm = HANG.TEST\n udp_preference_limit = 1\n[realms]\n HANG.TEST = {\n  kdc = " + kdc.Addr() + "\n }\n"
	kt := keytab.New()
	if err := kt.AddEntry("alice", "HANG.TEST", "secret", time.Now(), 1, 18); err != nil {
		t.Fatal(err)
	}
	ktPath := filepath.Join(dir, "alice.keytab")
	f, err := os.Create(ktPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kt.Write(f); err != nil || f.Close() != nil || os.WriteFile(conf, []byte(krb5), 0o644) != nil {
		t.Fatal("write the keytab or krb5.conf")
	}
	run := startBinary(t, dnechoBinary(t), []string{kerberos.ConfigEnv + "=" + conf}, "freon", "dn-echo", "--scm", "127.0.0.1:1",
		"-D", "hadoop.security.authentication=kerberos", "--container-id", "1", "--principal", "alice", "--keytab", ktPath)
	select {
	case <-kdc.Accepted():
	case <-time.After(30 * time.Second):
		t.Fatalf("freon never asked the KDC\n%s%s", run.stdout.String(), run.stderr.String())
	}
	run.signal(t, os.Interrupt)
	res := run.wait(t)
	if res.code != exitcode.Interrupted || res.took > 3*time.Second {
		t.Fatalf("exit %d after %s, want %d at once\n%s", res.code, res.took, exitcode.Interrupted, res.all())
	}
}
