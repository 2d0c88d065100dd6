package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeTemp(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fromMap(m map[string]string) *Config {
	c := New()
	for k, v := range m {
		c.Set(k, v)
	}
	return c
}

func TestLoadDirOrderFinalAndOverrides(t *testing.T) {
	dir := t.TempDir()
	writeTemp(t, dir, "core-site.xml", `<?xml version="1.0"?>
<configuration>
  <property><name>shared</name><value>core</value></property>
  <property><name>locked</name><value>core</value><final>true</final></property>
  <property name="attr.form" value="yes"/>
</configuration>`)
	writeTemp(t, dir, "ozone-site.xml", `<configuration>
  <property>
    <name>  shared  </name>
    <value>  ozone  </value>
  </property>
  <property><name>locked</name><value>ozone</value></property>
  <property><name>empty</name><value></value></property>
  <property><name>ref</name><value>${shared}-x</value></property>
</configuration>`)
	c, err := Load(dir, []string{"over=1=2", "locked=cli"})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ key, want string }{
		{"shared", "  ozone  "}, // name trimmed, value kept as written
		{"locked", "cli"},       // final blocks files, not overrides
		{"attr.form", "yes"},
		{"over", "1=2"},
		{"ref", "  ozone  -x"},
	}
	for _, ck := range checks {
		if got := c.Get(ck.key, "<unset>"); got != ck.want {
			t.Errorf("Get(%q) = %q, want %q", ck.key, got, ck.want)
		}
	}
	if got := c.GetTrimmed("shared", ""); got != "ozone" {
		t.Errorf("GetTrimmed = %q", got)
	}
	if _, ok := c.Lookup("empty"); ok {
		t.Error("an empty <value/> must leave the key unset, as in Hadoop")
	}
}

func TestLoadFinalAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	writeTemp(t, dir, "core-site.xml", `<configuration><property><name>k</name><value>core</value><final>true</final></property></configuration>`)
	writeTemp(t, dir, "ozone-site.xml", `<configuration><property><name>k</name><value>ozone</value></property></configuration>`)
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Get("k", ""); got != "core" {
		t.Errorf("final value overridden by a later file: %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.xml", "<configuration>\n<property>\n<name>a</name>\n<value>b</valu>\n</property>\n</configuration>\n")
	incl := writeTemp(t, dir, "incl.xml", "<configuration xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <xi:include href=\"x.xml\"/>\n</configuration>\n")
	notXML := writeTemp(t, dir, "plain.xml", "just text\n")
	tests := []struct {
		name, path string
		overrides  []string
		want       []string
	}{
		{"malformed", bad, nil, []string{"bad.xml:4", "malformed XML"}},
		{"include", incl, nil, []string{"incl.xml:2", "xi:include"}},
		{"no elements", notXML, nil, []string{"plain.xml", "no XML elements"}},
		{"missing dir", filepath.Join(dir, "nope"), nil, []string{"nope does not exist", ConfDirEnv}},
		{"bad override", "", []string{"novalue"}, []string{`"novalue"`, "key=value"}},
		{"empty key", "", []string{" =v"}, []string{"key=value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path, tt.overrides)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadSingleFileAndEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if c, err := Load(dir, nil); err != nil || len(c.Keys()) != 0 {
		t.Fatalf("empty dir: %v, %v", c, err)
	}
	f := writeTemp(t, dir, "custom.xml", `<configuration><property><name>a</name><value>1</value></property></configuration>`)
	c, err := Load(f, nil)
	if err != nil || c.Get("a", "") != "1" {
		t.Fatalf("single file: %v", err)
	}
}

func TestResolveDir(t *testing.T) {
	env := func(string) string { return "/env" }
	if got := ResolveDir("/flag", env); got != "/flag" {
		t.Error(got)
	}
	if got := ResolveDir("", env); got != "/env" {
		t.Error(got)
	}
	if got := ResolveDir("", nil); got != "" {
		t.Error(got)
	}
}

func TestExpand(t *testing.T) {
	t.Setenv("DNECHO_TEST_ENV", "fromenv")
	c := fromMap(map[string]string{
		"a": "${b}/${env.DNECHO_TEST_ENV}", "b": "B",
		"loop": "${loop}", "unknown": "x${nope}y${b}",
		"def": "${env.DNECHO_UNSET_VAR:-dflt}",
	})
	for key, want := range map[string]string{
		"a": "B/fromenv", "loop": "${loop}", "unknown": "x${nope}y${b}", "def": "dflt",
	} {
		if got := c.Get(key, ""); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}

func TestTypedGetters(t *testing.T) {
	c := fromMap(map[string]string{
		"b.true": " TRUE ", "b.bad": "yes", "i.dec": " 42 ", "i.hex": "0x1F", "i.neg": "-7", "i.bad": "4x",
		"i.big": "2147483648", "d.ms": "1500ms", "d.bare": "15", "d.day": "7D", "d.bad": "1.5s",
		"s.gb": "1GB", "s.m": "64m", "s.frac": "1.5 kb", "s.bare": "10", "s.bad": "lots",
	})
	if v, err := c.GetBool("b.true", false); !v || err != nil {
		t.Errorf("b.true = %v, %v", v, err)
	}
	if v, err := c.GetBool("b.bad", true); !v || err == nil {
		t.Errorf("b.bad = %v, %v: want default and a warning", v, err)
	}
	if v, _ := c.GetBool("unset", true); !v {
		t.Error("unset bool")
	}
	ints := []struct {
		key  string
		want int
		bad  bool
	}{{"i.dec", 42, false}, {"i.hex", 31, false}, {"i.neg", -7, false}, {"i.bad", 5, true}, {"i.big", 5, true}, {"unset", 5, false}}
	for _, tt := range ints {
		v, err := c.GetInt(tt.key, 5)
		if v != tt.want || (err != nil) != tt.bad {
			t.Errorf("GetInt(%s) = %d, %v", tt.key, v, err)
		}
	}
	durs := []struct {
		key        string
		unit, want time.Duration
		bad        bool
	}{
		{"d.ms", time.Millisecond, 1500 * time.Millisecond, false},
		{"d.ms", time.Second, time.Second, false}, // truncated to the unit, as Hadoop's long result is
		{"d.bare", time.Second, 15 * time.Second, false},
		{"d.bare", time.Millisecond, 15 * time.Millisecond, false},
		{"d.day", time.Second, 7 * 24 * time.Hour, false},
		{"d.bad", time.Second, time.Minute, true},
		{"unset", time.Second, time.Minute, false},
	}
	for _, tt := range durs {
		v, err := c.GetDuration(tt.key, time.Minute, tt.unit)
		if v != tt.want || (err != nil) != tt.bad {
			t.Errorf("GetDuration(%s, %v) = %v, %v", tt.key, tt.unit, v, err)
		}
	}
	sizes := []struct {
		key  string
		want int64
		bad  bool
	}{{"s.gb", 1 << 30, false}, {"s.m", 64 << 20, false}, {"s.frac", 1536, false}, {"s.bare", 10 << 20, false}, {"s.bad", 3, true}, {"unset", 3, false}}
	for _, tt := range sizes {
		v, err := c.GetSize(tt.key, 3, 1<<20)
		if v != tt.want || (err != nil) != tt.bad {
			t.Errorf("GetSize(%s) = %d, %v", tt.key, v, err)
		}
	}
	if got := fromMap(map[string]string{"l": " a, ,b ,, c "}).GetStrings("l"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("GetStrings = %q", got)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	props := map[string]string{"ozone.scm.names": "localhost", "odd": `<&>"' x`}
	if err := Write(dir, props); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range props {
		if got := c.Get(k, ""); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestParseDockerConfig(t *testing.T) {
	in := "# comment\nOZONE-SITE.XML_a=1\nCORE-SITE.XML_b=x=y\nno_proxy=om\nLOG4J.PROPERTIES_log4j.x=1\nOZONE-SITE.XML_a=2\n\n"
	got, err := ParseDockerConfig(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"ozone-site.xml": {"a": "2"},
		"core-site.xml":  {"b": "x=y"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
