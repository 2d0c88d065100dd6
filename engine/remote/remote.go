// Package remote fetches the https:// modules scripts import (k6's jslib and the like) and keeps
// them in a module cache on disk, so that a second run, and a machine without network access,
// use the cached copy. Modules are looked up in the cache first: jslib URLs name a version, so a
// cached copy does not go stale. A module that is neither cached nor reachable may have a
// built-in stand-in (dnecho's own k6-summary); using one logs a one-line notice.
//
// The cache directory is $DNECHO_MODULE_CACHE, else dnecho/modules in the user's cache
// directory ($XDG_CACHE_HOME or ~/.cache on Linux). A module is stored under its host and path:
// https://jslib.k6.io/k6-summary/0.0.2/index.js is <cache>/jslib.k6.io/k6-summary/0.0.2/index.js.
package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Settings, and their defaults.
const (
	// EnvCacheDir names the environment variable that overrides DefaultCacheDir.
	EnvCacheDir = "DNECHO_MODULE_CACHE"
	// DefaultTimeout bounds one fetch, connection included.
	DefaultTimeout = 10 * time.Second
	// MaxModuleSize bounds the size of a fetched module.
	MaxModuleSize = 16 << 20
)

// Builtin is a stand-in for remote modules that cannot be fetched.
type Builtin struct {
	// Match reports whether the builtin stands in for a URL.
	Match func(url string) bool
	// Source is the module text used instead.
	Source []byte
	// Description ends the notice: "using <Description>".
	Description string
}

// Options configure a Fetcher. The zero value fetches with DefaultTimeout into DefaultCacheDir.
type Options struct {
	// CacheDir is the module cache; "" means DefaultCacheDir.
	CacheDir string
	// Timeout bounds one fetch; 0 means DefaultTimeout.
	Timeout time.Duration
	// RootCAs are the certificate authorities trusted for fetches; nil means the system's (which
	// SSL_CERT_FILE and SSL_CERT_DIR can change).
	RootCAs *x509.CertPool
	// Builtins stand in for modules that are neither cached nor reachable.
	Builtins []Builtin
	// Notice receives one-line notices (a builtin used); nil drops them.
	Notice func(msg string)
}

// Fetcher gives the source of remote modules (it implements js.RemoteModules). It is safe for
// concurrent use.
type Fetcher struct {
	o      Options
	client *http.Client
}

// DefaultCacheDir is $DNECHO_MODULE_CACHE, else dnecho/modules in os.UserCacheDir.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("module cache: %w (set %s)", err, EnvCacheDir)
	}
	return filepath.Join(d, "dnecho", "modules"), nil
}

// New returns a Fetcher.
func New(o Options) (*Fetcher, error) {
	if o.CacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		o.CacheDir = d
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// A test imports a few modules once: no connection is worth keeping (or leaving behind).
	tr.DisableKeepAlives = true
	if o.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &Fetcher{o: o, client: &http.Client{Timeout: o.Timeout, Transport: tr}}, nil
}

// CacheDir returns the module cache directory.
func (f *Fetcher) CacheDir() string { return f.o.CacheDir }

// Module returns the source of the module at an https:// URL: the cached copy, else the fetched
// one (then cached), else a builtin's stand-in.
func (f *Fetcher) Module(ctx context.Context, rawURL string) ([]byte, error) {
	file, err := f.cachePath(rawURL)
	if err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(file); err == nil {
		return data, nil
	}
	data, fetchErr := f.fetch(ctx, rawURL)
	if fetchErr == nil {
		f.store(file, data)
		return data, nil
	}
	for _, b := range f.o.Builtins {
		if b.Match(rawURL) {
			f.notice(fmt.Sprintf("%s: %v; using %s", rawURL, fetchErr, b.Description))
			return b.Source, nil
		}
	}
	return nil, fmt.Errorf("%w (and the module cache %s has no copy)", fetchErr, f.o.CacheDir)
}

// cachePath is where a URL's module is cached: <cache>/<host>/<path>[?query escaped].
func (f *Fetcher) cachePath(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("remote module %q: want an https:// URL", rawURL)
	}
	p := path.Clean("/" + u.Path)
	if strings.HasSuffix(u.Path, "/") || p == "/" {
		p = path.Join(p, "index")
	}
	if u.RawQuery != "" {
		p += "%3F" + url.QueryEscape(u.RawQuery)
	}
	return filepath.Join(f.o.CacheDir, filepath.FromSlash(strings.ReplaceAll(u.Host, ":", "_")+p)), nil
}

// fetch downloads a module.
func (f *Fetcher) fetch(ctx context.Context, rawURL string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", rawURL, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxModuleSize+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	if len(data) > MaxModuleSize {
		return nil, fmt.Errorf("fetch %s: larger than %d bytes", rawURL, MaxModuleSize)
	}
	return data, nil
}

// store writes a fetched module to the cache. A cache that cannot be written is only noted:
// the module is fetched again next time.
func (f *Fetcher) store(file string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		f.notice("module cache: " + err.Error())
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".fetch-*")
	if err != nil {
		f.notice("module cache: " + err.Error())
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// A rename publishes the whole file at once, so a concurrent run never reads half of it.
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		f.notice("module cache: " + err.Error())
	}
}

func (f *Fetcher) notice(msg string) {
	if f.o.Notice != nil {
		f.o.Notice(msg)
	}
}
