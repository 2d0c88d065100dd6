// Package config reads Ozone client configuration the way Hadoop's Configuration does:
// ozone-site.xml and core-site.xml from a directory ($OZONE_CONF_DIR or --conf), with
// -D key=value overrides on top, typed getters that accept Hadoop's value syntax, and the
// derived settings an Ozone client needs (SCM addresses, security, TLS, timeouts).
//
// It knows nothing about load generation or JavaScript; anything that talks to Ozone can use it.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ConfDirEnv is the environment variable that names the configuration directory when no
// --conf option is given (the Ozone shell scripts use the same variable).
const ConfDirEnv = "OZONE_CONF_DIR"

// SiteFiles are the files Load reads from a configuration directory, in this order; a later
// file overrides an earlier one, as Ozone adds core-site before ozone-site.
var SiteFiles = []string{"core-site.xml", "ozone-site.xml"}

// Config is a set of Hadoop-style properties. The zero value is not usable; use New or Load.
// A Config is safe for concurrent reads once loading and Set calls are done.
type Config struct {
	props   map[string]string
	final   map[string]bool
	sources []string
}

// New returns an empty configuration: every getter returns its default.
func New() *Config {
	return &Config{props: map[string]string{}, final: map[string]bool{}}
}

// ResolveDir picks the configuration location: the --conf value if set, else $OZONE_CONF_DIR,
// else "" (no files, defaults only). getenv is os.Getenv outside tests.
func ResolveDir(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	if getenv == nil {
		return ""
	}
	return getenv(ConfDirEnv)
}

// Load reads the configuration at path and applies overrides ("key=value", as given to -D).
// path may be a directory, from which the SiteFiles present are read, or a single XML file
// (freon's --conf takes a file). An empty path loads no files. A path that does not exist
// is an error; a directory without site files is not (every key then has its default).
func Load(path string, overrides []string) (*Config, error) {
	c := New()
	if path != "" {
		if err := c.loadPath(path); err != nil {
			return nil, err
		}
	}
	for _, kv := range overrides {
		if err := c.SetOverride(kv); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Config) loadPath(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("config: %s does not exist (set --conf or %s to the directory holding ozone-site.xml)", path, ConfDirEnv)
		}
		return fmt.Errorf("config: %w", err)
	}
	if !info.IsDir() {
		return c.AddFile(path)
	}
	for _, name := range SiteFiles {
		file := filepath.Join(path, name)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := c.AddFile(file); err != nil {
			return err
		}
	}
	return nil
}

// AddFile parses one Hadoop XML configuration file and merges it: its properties override
// earlier ones except those an earlier file marked final (Hadoop's rule).
func (c *Config) AddFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	props, err := parseXML(f, path)
	if err != nil {
		return err
	}
	for _, p := range props {
		if c.final[p.name] {
			continue
		}
		c.props[p.name] = p.value
		if p.final {
			c.final[p.name] = true
		}
	}
	c.sources = append(c.sources, path)
	return nil
}

// Set stores a property, overriding any file value, final or not (like Configuration.set).
func (c *Config) Set(key, value string) {
	c.props[key] = value
}

// SetOverride applies one "key=value" override as given to -D / --set. The key is trimmed;
// the value is kept as written (getters trim it where Hadoop does).
func (c *Config) SetOverride(kv string) error {
	key, value, ok := strings.Cut(kv, "=")
	key = trimJava(key)
	if !ok || key == "" {
		return fmt.Errorf("config: override %q: want key=value", kv)
	}
	c.Set(key, value)
	return nil
}

// Sources lists the files that were read, in order.
func (c *Config) Sources() []string {
	return append([]string(nil), c.sources...)
}

// Keys lists every property name, sorted.
func (c *Config) Keys() []string {
	keys := make([]string, 0, len(c.props))
	for k := range c.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Lookup returns a property with ${...} references expanded, and whether it is set.
// Like Hadoop's get, the value is not trimmed.
func (c *Config) Lookup(key string) (string, bool) {
	v, ok := c.props[key]
	if !ok {
		return "", false
	}
	return c.expand(v), true
}

// Get returns a property (expanded, untrimmed) or def when it is not set.
func (c *Config) Get(key, def string) string {
	if v, ok := c.Lookup(key); ok {
		return v
	}
	return def
}

// GetTrimmed returns a property with surrounding whitespace removed, or def when it is unset
// or blank (Hadoop's getTrimmed).
func (c *Config) GetTrimmed(key, def string) string {
	if v, ok := c.Lookup(key); ok {
		if t := trimJava(v); t != "" {
			return t
		}
	}
	return def
}

// GetStrings splits a comma-separated property into trimmed, non-empty parts
// (Hadoop's getTrimmedStrings). An unset key gives nil.
func (c *Config) GetStrings(key string) []string {
	v, ok := c.Lookup(key)
	if !ok {
		return nil
	}
	var out []string
	for _, part := range strings.Split(v, ",") {
		if t := trimJava(part); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// trimJava removes leading and trailing characters <= U+0020, which is what Java's
// String.trim (and so every Hadoop getter) strips; Go's TrimSpace differs (it keeps control
// characters and strips Unicode spaces).
func trimJava(s string) string {
	isSpace := func(r rune) bool { return r <= ' ' }
	return strings.TrimRightFunc(strings.TrimLeftFunc(s, isSpace), isSpace)
}
