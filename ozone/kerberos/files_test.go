package kerberos

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// damaged returns every truncation of b and, for every byte, b with that byte inverted, and with
// the four bytes from it set to 0xff (a length or count at its largest).
func damaged(b []byte) map[string][]byte {
	out := map[string][]byte{}
	for n := 0; n < len(b); n++ {
		out["truncated to "+strconv.Itoa(n)] = b[:n]
	}
	for i := range b {
		c := append([]byte{}, b...)
		c[i] ^= 0xff
		out["byte "+strconv.Itoa(i)+" inverted"] = c
		c = append([]byte{}, b...)
		for j := i; j < i+4 && j < len(c); j++ {
			c[j] = 0xff
		}
		out["0xffffffff at "+strconv.Itoa(i)] = c
	}
	return out
}

// secretForms are the ways a key could show up in a message: raw, hex (either case), base64.
func secretForms(key []byte) []string {
	return []string{string(key), hex.EncodeToString(key), strings.ToUpper(hex.EncodeToString(key)),
		base64.StdEncoding.EncodeToString(key)}
}

// checkMessage fails when an error text is more than one short line, or holds a secret or the
// file's bytes.
func checkMessage(t *testing.T, name string, err error, file []byte, secrets []string) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") || len(msg) > 400 {
		t.Errorf("%s: not one short line (%d bytes): %q", name, len(msg), msg)
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("%s: the message shows the key: %q", name, msg)
		}
	}
	if len(file) > 16 && strings.Contains(msg, string(file[2:16])) {
		t.Errorf("%s: the message quotes the file: %q", name, msg)
	}
}

// A damaged keytab or ticket cache made by the MIT tools fails Login with one line naming the file,
// without a panic, without the keys, and without allocating what a damaged length says.
func TestLoginDamagedFiles(t *testing.T) {
	k, userKT := realm(t)
	ccache := k.Kinit(t, "alice", userKT, "")
	ktBytes, err := os.ReadFile(userKT)
	if err != nil {
		t.Fatal(err)
	}
	ccBytes, err := os.ReadFile(ccache)
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	kt, err := keytab.Load(userKT) // the intact file, for its keys
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range kt.Entries {
		secrets = append(secrets, secretForms(e.Key.KeyValue)...)
	}
	cc, problem := parseCCache(ccBytes)
	if problem != "" {
		t.Fatalf("kinit's cache: %s", problem)
	}
	for _, c := range cc.Credentials {
		secrets = append(secrets, secretForms(c.Key.KeyValue)...)
	}
	dir := t.TempDir()
	for _, f := range []struct {
		kind string
		data []byte
		opts func(path string) LoginOptions
	}{
		{"keytab", ktBytes, func(p string) LoginOptions { return LoginOptions{Config: k.Config, Principal: "alice", Keytab: p} }},
		{"ticket cache", ccBytes, func(p string) LoginOptions { return LoginOptions{Config: k.Config, CCache: "FILE:" + p} }},
	} {
		failed := 0
		for name, data := range damaged(f.data) {
			path := filepath.Join(dir, "damaged")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c, err := Login(f.opts(path))
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("%s %s: Login allocated %d MB", f.kind, name, grew>>20)
			}
			if err == nil {
				c.Close() // a change the format allows (a timestamp, a flag)
				continue
			}
			failed++
			checkMessage(t, f.kind+" "+name, err, data, secrets)
			if errors.Is(err, ErrBadFile) && !strings.Contains(err.Error(), path) {
				t.Errorf("%s %s: the message does not name the file: %v", f.kind, name, err)
			}
		}
		if failed < len(f.data) { // at least the truncations fail
			t.Errorf("%s: only %d damaged files failed", f.kind, failed)
		}
	}
}

// Files that are not credentials at all: empty, a directory, missing, random text.
func TestLoginUnusableFiles(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "krb5.conf")
	if err := os.WriteFile(conf, []byte("[libdefaults]\n default_realm = EXAMPLE.COM\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	text := filepath.Join(dir, "text")
	if os.WriteFile(empty, nil, 0o600) != nil || os.WriteFile(text, []byte("not a credential file at all\n"), 0o600) != nil {
		t.Fatal("write")
	}
	for _, tc := range []struct {
		name string
		o    LoginOptions
		want string
	}{
		{"empty cache", LoginOptions{CCache: "FILE:" + empty}, "ticket cache " + empty + ": is empty"},
		{"cache is a directory", LoginOptions{CCache: dir}, "is a directory"},
		{"text cache", LoginOptions{CCache: text}, "not a ticket cache"},
		{"empty keytab", LoginOptions{Principal: "alice", Keytab: empty}, "keytab " + empty + ": is empty"},
		{"missing keytab", LoginOptions{Principal: "alice", Keytab: dir + "/none"}, "keytab " + dir + "/none: no such file"},
		{"text keytab", LoginOptions{Principal: "alice", Keytab: text}, "not a keytab"},
		{"device keytab", LoginOptions{Principal: "alice", Keytab: "/dev/zero"}, "not a regular file"},
		{"empty krb5.conf", LoginOptions{Config: empty, CCache: text}, "configuration " + empty + ": is empty"},
		{"missing krb5.conf", LoginOptions{Config: dir + "/none.conf", CCache: text}, "configuration " + dir + "/none.conf: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.o.Config == "" {
				tc.o.Config = conf
			}
			done := make(chan struct{})
			var err error
			go func() {
				defer close(done)
				var c *Credentials
				if c, err = Login(tc.o); err == nil {
					c.Close()
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Login still running after 10s")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrBadFile) {
				t.Fatalf("got %v, want ErrBadFile with %q", err, tc.want)
			}
			checkMessage(t, tc.name, err, nil, nil)
		})
	}
}

// A count or length at its largest fails at once instead of allocating (a damaged cache made
// gokrb5 ask for 25.8 GB).
func TestCCacheCountsAreBounded(t *testing.T) {
	good := testCCache("alice", "EXAMPLE.COM", []byte("0123456789abcdef0123456789abcdef"))
	if _, problem := parseCCache(good); problem != "" {
		t.Fatalf("good cache: %s", problem)
	}
	for _, field := range []string{"addresses", "authdata"} {
		b := testCCacheWith("alice", "EXAMPLE.COM", []byte("k"), field)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, problem := parseCCache(b)
		runtime.ReadMemStats(&after)
		if problem == "" || !strings.Contains(problem, "truncated or damaged") {
			t.Errorf("%s count 0xffffffff: %q", field, problem)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s count 0xffffffff: allocated %d bytes", field, grew)
		}
	}
}

// testCCache is a version 4 ticket cache holding one ticket-granting ticket.
func testCCache(user, realm string, key []byte) []byte { return testCCacheWith(user, realm, key, "") }

// testCCacheWith writes a cache whose address or authorization-data count (huge) is 0xffffffff.
func testCCacheWith(user, realm string, key []byte, huge string) []byte {
	var b bytes.Buffer
	u32 := func(v uint32) { b.Write([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}) }
	str := func(s []byte) { u32(uint32(len(s))); b.Write(s) }
	princ := func(realm string, comps ...string) {
		u32(1)
		u32(uint32(len(comps)))
		str([]byte(realm))
		for _, c := range comps {
			str([]byte(c))
		}
	}
	b.Write([]byte{5, 4, 0, 12, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0})
	princ(realm, user)
	princ(realm, user)
	princ(realm, "krbtgt", realm)
	b.Write([]byte{0, 18})
	str(key)
	now := uint32(time.Now().Unix())
	for _, t := range []uint32{now, now, now + 3600, now + 3600} {
		u32(t)
	}
	b.Write([]byte{0, 0x40, 0, 0, 0})
	for _, f := range []string{"addresses", "authdata"} {
		if f == huge {
			u32(0xffffffff)
		} else {
			u32(0)
		}
	}
	str([]byte{0x61, 0x03, 0x02, 0x01, 0x05}) // not a whole ticket; the parser does not decode it
	str(nil)
	return b.Bytes()
}

// FuzzCredentialFiles feeds arbitrary bytes to the keytab, ticket cache and krb5.conf loading
// paths. None may panic; a problem is one short line; a keytab this parser accepts is one gokrb5
// reads with the same keys.
func FuzzCredentialFiles(f *testing.F) {
	kt := keytab.New()
	if err := kt.AddEntry("alice", "EXAMPLE.COM", "secret", time.Unix(1700000000, 0), 2, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		f.Fatal(err)
	}
	ktb, err := kt.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ktb)
	f.Add(testCCache("alice", "EXAMPLE.COM", []byte("0123456789abcdef")))
	f.Add([]byte("[libdefaults]\n default_realm = EXAMPLE.COM\n[realms]\n EXAMPLE.COM = {\n kdc = 127.0.0.1:88\n }\n"))
	f.Add([]byte{5, 2, 0, 0, 0, 0})
	f.Add([]byte{5, 4})
	cfg := config.New()
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, problem := parseKeytab(b)
		checkProblem(t, problem)
		if problem == "" {
			var got keytab.Keytab
			if err := got.Unmarshal(encodeKeytab(entries)); err != nil || len(got.Entries) != len(entries) {
				t.Fatalf("gokrb5 reads %d entries (%v) of the %d accepted", len(got.Entries), err, len(entries))
			}
			for i, e := range got.Entries {
				if !bytes.Equal(e.Key.KeyValue, entries[i].key) || e.Principal.Realm != string(entries[i].realm) {
					t.Fatalf("entry %d differs after gokrb5 read it", i)
				}
			}
		}
		cc, problem := parseCCache(b)
		checkProblem(t, problem)
		if problem == "" && hasTGT(cc) {
			if cl, err := newFromCCache(cc, cfg); err == nil {
				cl.Destroy()
			}
		}
		if _, err := parseConfig(b); err != nil {
			checkProblem(t, firstLine(err.Error()))
		}
	})
}

func checkProblem(t *testing.T, p string) {
	t.Helper()
	if strings.ContainsAny(p, "\n\r") || len(p) > 200 {
		t.Fatalf("problem is not one short line: %q", p)
	}
}
