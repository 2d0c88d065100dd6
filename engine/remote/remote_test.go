package remote

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server serves modules from a map over TLS and counts requests.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, modules map[string]string) *server {
	s := &server{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		src, ok := modules[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(src))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.Certificate())
	return p
}

func TestFetchThenCache(t *testing.T) {
	srv := newServer(t, map[string]string{"/lib/1.0.0/index.js": "export const v = 1;"})
	cache := t.TempDir()
	url := srv.URL + "/lib/1.0.0/index.js"
	f, err := New(Options{CacheDir: cache, RootCAs: srv.pool()})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		src, err := f.Module(context.Background(), url)
		if err != nil || string(src) != "export const v = 1;" {
			t.Fatalf("module %q, %v", src, err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1: the second read must come from the cache", n)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "https://"), ":", "_")
	if b, err := os.ReadFile(filepath.Join(cache, host, "lib", "1.0.0", "index.js")); err != nil || string(b) != "export const v = 1;" {
		t.Fatalf("cached file %q, %v", b, err)
	}

	// Offline: the server is gone, and a fresh Fetcher (a later run) on the same cache still works.
	srv.Close()
	f2, err := New(Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if src, err := f2.Module(context.Background(), url); err != nil || string(src) != "export const v = 1;" {
		t.Fatalf("offline read %q, %v", src, err)
	}
}

func TestFetchFailures(t *testing.T) {
	srv := newServer(t, nil)
	var notices []string
	builtin := Builtin{
		Match:       func(u string) bool { return strings.HasSuffix(u, "/summary/0.0.2/index.js") },
		Source:      []byte("export const builtin = true;"),
		Description: "the built-in summary",
	}
	f, err := New(Options{CacheDir: t.TempDir(), RootCAs: srv.pool(), Builtins: []Builtin{builtin},
		Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if src, err := f.Module(ctx, srv.URL+"/summary/0.0.2/index.js"); err != nil || string(src) != "export const builtin = true;" {
		t.Fatalf("builtin: %q, %v", src, err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "404 Not Found; using the built-in summary") {
		t.Errorf("notices %q", notices)
	}
	if _, err := f.Module(ctx, srv.URL+"/other.js"); err == nil || !strings.Contains(err.Error(), "404") ||
		!strings.Contains(err.Error(), "module cache") {
		t.Errorf("missing module: %v", err)
	}
	// Untrusted certificate: the fetch fails, nothing is cached.
	untrusting, _ := New(Options{CacheDir: t.TempDir()})
	if _, err := untrusting.Module(ctx, srv.URL+"/other.js"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted server: %v", err)
	}
	for _, bad := range []string{"http://example.com/x.js", "https:///x.js", "file:///etc/passwd"} {
		if _, err := f.Module(ctx, bad); err == nil || !strings.Contains(err.Error(), "want an https:// URL") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestFetchTimeout: a server that never answers costs the fetch its timeout, not more.
func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	p := x509.NewCertPool()
	p.AddCert(srv.Certificate())
	f, err := New(Options{CacheDir: t.TempDir(), RootCAs: p, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Module(context.Background(), srv.URL+"/slow.js"); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("err %v, want a timeout", err)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(EnvCacheDir, "/some/where")
	if d, err := DefaultCacheDir(); err != nil || d != "/some/where" {
		t.Fatalf("%s %v", d, err)
	}
	t.Setenv(EnvCacheDir, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d, err := DefaultCacheDir(); err != nil || d != "/xdg/dnecho/modules" {
		t.Fatalf("%s %v", d, err)
	}
}
