// Package testkdc runs a throw-away MIT Kerberos KDC on 127.0.0.1 for tests: a realm in a
// temporary directory, principals with random keys, keytabs and kinit ticket caches. Tests that
// need one call Start, which skips the test (fails it under testdeps.RequireEnv=1) when the MIT
// tools are missing (scripts/test-deps.sh installs krb5-kdc, krb5-admin-server and krb5-user as root).
package testkdc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/testdeps"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// Realm is the realm every test KDC serves.
const Realm = "DNECHO.TEST"

// KDC is a running KDC and the files a client needs to use it.
type KDC struct {
	// Dir holds the database, the configuration, keytabs and caches.
	Dir string
	// Config is the krb5.conf clients use (set KRB5_CONFIG to it).
	Config string
	// Port is the KDC's TCP and UDP port on 127.0.0.1.
	Port int

	kdcConf string
	cmd     *exec.Cmd
	netns   string // run the KDC and kinit inside this network namespace
}

// tools are the MIT programs the package runs.
var tools = []string{"krb5kdc", "kdb5_util", "kadmin.local", "kinit", "klist"}

// Available reports whether the MIT tools are installed.
func Available() bool { return missing() == nil }

// missing names the first MIT tool that is not installed.
func missing() error {
	for _, t := range tools {
		if _, err := lookPath(t); err != nil {
			return err
		}
	}
	return nil
}

func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
		if p := filepath.Join(d, name); isFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Start creates a realm and starts its KDC; t's cleanup stops it. The test is skipped when the
// MIT tools are not installed, or fails under testdeps.RequireEnv=1.
func Start(t testing.TB) *KDC { return StartIn(t, "") }

// StartIn is Start with the KDC (and kinit, klist) running inside network namespace netns
// ("" for none), on that namespace's 127.0.0.1.
func StartIn(t testing.TB, netns string) *KDC {
	t.Helper()
	testdeps.SkipShort(t, "an MIT KDC")
	testdeps.Require(t, "MIT Kerberos (krb5-kdc, krb5-admin-server, krb5-user)", missing(), "run scripts/test-deps.sh as root")
	var lastErr error
	for try := 0; try < 3; try++ { // a free port may be taken between probe and bind
		k, err := start(t.TempDir(), netns)
		if err == nil {
			t.Cleanup(k.Stop)
			return k
		}
		lastErr = err
	}
	t.Fatalf("testkdc: %v", lastErr)
	return nil
}

func start(dir, netns string) (*KDC, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	k := &KDC{Dir: dir, Config: filepath.Join(dir, "krb5.conf"), kdcConf: filepath.Join(dir, "kdc.conf"), Port: port, netns: netns}
	if err := k.writeConfigs(); err != nil {
		return nil, err
	}
	if out, err := k.run("kdb5_util", "create", "-s", "-r", Realm, "-P", "dnecho-master-key"); err != nil {
		return nil, fmt.Errorf("kdb5_util create: %v\n%s", err, out)
	}
	bin, _ := lookPath("krb5kdc")
	log, err := os.Create(filepath.Join(dir, "krb5kdc.out"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	k.cmd = k.command(bin, "-n", "-r", Realm)
	k.cmd.Env = k.Env()
	k.cmd.Stdout, k.cmd.Stderr = log, log
	if err := k.cmd.Start(); err != nil {
		return nil, fmt.Errorf("krb5kdc: %w", err)
	}
	if err := testwait.Until(15*time.Second, fmt.Sprintf("krb5kdc listening on port %d", k.Port), k.listening); err != nil {
		k.Stop()
		out, _ := os.ReadFile(filepath.Join(dir, "krb5kdc.out"))
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	return k, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (k *KDC) writeConfigs() error {
	krb5 := fmt.Sprintf(`[libdefaults]
	default_realm = %[1]s
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
	udp_preference_limit = 1
	ticket_lifetime = 10h
	renew_lifetime = 1d
	default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
	%[1]s = {
		kdc = 127.0.0.1:%[2]d
	}

[domain_realm]
	localhost = %[1]s
`, Realm, k.Port)
	kdc := fmt.Sprintf(`[kdcdefaults]
	kdc_listen = 127.0.0.1:%[2]d
	kdc_tcp_listen = 127.0.0.1:%[2]d

[realms]
	%[1]s = {
		database_name = %[3]s/principal
		key_stash_file = %[3]s/stash
		acl_file = %[3]s/kadm5.acl
		supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
		max_life = 10h
		max_renewable_life = 1d
	}

[logging]
	kdc = FILE:%[3]s/kdc.log
`, Realm, k.Port, k.Dir)
	if err := os.WriteFile(k.Config, []byte(krb5), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(k.Dir, "kadm5.acl"), nil, 0o644); err != nil {
		return err
	}
	return os.WriteFile(k.kdcConf, []byte(kdc), 0o644)
}

// command builds a command that runs where the KDC runs.
func (k *KDC) command(bin string, args ...string) *exec.Cmd {
	if k.netns != "" {
		return exec.Command("ip", append([]string{"netns", "exec", k.netns, bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func (k *KDC) listening() bool {
	if k.netns != "" {
		return k.command("bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", k.Port)).Run() == nil
	}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", k.Port), time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// Env is the environment the MIT tools and clients need for this realm.
func (k *KDC) Env() []string {
	return append(os.Environ(), "KRB5_CONFIG="+k.Config, "KRB5_KDC_PROFILE="+k.kdcConf)
}

func (k *KDC) run(tool string, args ...string) ([]byte, error) {
	bin, err := lookPath(tool)
	if err != nil {
		return nil, err
	}
	cmd := k.command(bin, args...)
	cmd.Env = k.Env()
	return cmd.CombinedOutput()
}

// AddPrincipals creates principals ("alice", "scm/localhost") with random keys.
func (k *KDC) AddPrincipals(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if out, err := k.run("kadmin.local", "-r", Realm, "-q", "addprinc -randkey "+n); err != nil || strings.Contains(string(out), " while ") {
			t.Fatalf("testkdc: addprinc %s: %v\n%s", n, err, out)
		}
	}
}

// Keytab writes a new keytab holding the principals' current keys and returns its path.
// Exporting with ktadd gives the principals new keys, so earlier keytabs stop working.
func (k *KDC) Keytab(t testing.TB, name string, principals ...string) string {
	t.Helper()
	path := filepath.Join(k.Dir, name)
	for _, p := range principals {
		if out, err := k.run("kadmin.local", "-r", Realm, "-q", "ktadd -k "+path+" "+p); err != nil || strings.Contains(string(out), " while ") {
			t.Fatalf("testkdc: ktadd %s: %v\n%s", p, err, out)
		}
	}
	return path
}

// Kinit logs principal in from keytab into a new ticket cache and returns the cache's path.
// lifetime ("" for the default) is kinit's -l.
func (k *KDC) Kinit(t testing.TB, principal, keytab, lifetime string) string {
	t.Helper()
	cache := filepath.Join(k.Dir, "cc-"+strings.NewReplacer("/", "_", "@", "_").Replace(principal)+fmt.Sprint(time.Now().UnixNano()))
	args := []string{"-c", "FILE:" + cache, "-kt", keytab}
	if lifetime != "" {
		args = append(args, "-l", lifetime)
	}
	if out, err := k.run("kinit", append(args, principal)...); err != nil {
		t.Fatalf("testkdc: kinit %s: %v\n%s", principal, err, out)
	}
	return cache
}

// Valid reports whether the cache holds an unexpired ticket (klist -s).
func (k *KDC) Valid(cache string) bool {
	_, err := k.run("klist", "-s", "-c", "FILE:"+cache)
	return err == nil
}

// Stop stops the KDC and waits for it to exit.
func (k *KDC) Stop() {
	if k.cmd == nil || k.cmd.Process == nil || k.cmd.ProcessState != nil {
		return
	}
	k.cmd.Process.Kill()
	k.cmd.Wait()
}

// Ozone is a realm with the principals of a secure Ozone test cluster, each with its own keytab:
// the users alice and bob and the services scm/localhost and om/localhost.
type Ozone struct {
	*KDC
	AliceKeytab, BobKeytab, SCMKeytab, OMKeytab string
}

// Service principals of Ozone.
const (
	SCMPrincipal = "scm/localhost@" + Realm
	OMPrincipal  = "om/localhost@" + Realm
)

// StartOzone starts a KDC with the Ozone principals and points KRB5_CONFIG at it for the test.
func StartOzone(t *testing.T) *Ozone {
	t.Helper()
	k := Start(t)
	k.AddPrincipals(t, "alice", "bob", "scm/localhost", "om/localhost")
	t.Setenv("KRB5_CONFIG", k.Config)
	return &Ozone{KDC: k, AliceKeytab: k.Keytab(t, "alice.keytab", "alice"), BobKeytab: k.Keytab(t, "bob.keytab", "bob"),
		SCMKeytab: k.Keytab(t, "scm.keytab", "scm/localhost"), OMKeytab: k.Keytab(t, "om.keytab", "om/localhost")}
}
