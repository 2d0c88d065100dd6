package cli

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// jslibSummary is the most used jslib URL; dnecho stands in for it offline.
const jslibSummary = "https://jslib.k6.io/k6-summary/0.0.2/index.js"

// moduleServer is a local HTTPS server of remote modules whose CA the dnecho child process
// trusts through SSL_CERT_FILE.
type moduleServer struct {
	*httptest.Server
	caFile string
	hits   atomic.Int64
}

func newModuleServer(t *testing.T, modules map[string]string) *moduleServer {
	t.Helper()
	s := &moduleServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		src, ok := modules[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(src))
	}))
	t.Cleanup(s.Close)
	s.caFile = filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	if err := os.WriteFile(s.caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// offline is the environment of a machine that reaches no module server: the proxy refuses
// every connection at once.
func offline(cache string) []string {
	return []string{"DNECHO_MODULE_CACHE=" + cache, "HTTPS_PROXY=http://127.0.0.1:1", "NO_PROXY="}
}

// TestRunRemoteModuleCache: an https:// import is fetched once into the module cache; the next
// run, with the server gone, uses the cache.
func TestRunRemoteModuleCache(t *testing.T) {
	t.Parallel()
	srv := newModuleServer(t, map[string]string{
		"/lib/1.2.0/index.js": `export { greet } from './greet.js';`,
		"/lib/1.2.0/greet.js": `export function greet(n) { return 'hello ' + n; }`,
	})
	cache := t.TempDir()
	path := writeRunScript(t, "remote.js", `
import { greet } from '`+srv.URL+`/lib/1.2.0/index.js';
export const options = { iterations: 1 };
export default function () { console.log(greet('remote')); }`)
	online := []string{"DNECHO_MODULE_CACHE=" + cache, "SSL_CERT_FILE=" + srv.caFile}
	r := dnechoEnv(t, online, "run", "-q", path)
	if r.code != 0 || !strings.Contains(r.all(), "hello remote") {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	if srv.hits.Load() != 2 {
		t.Errorf("%d requests for 2 modules", srv.hits.Load())
	}
	srv.Close()
	r = dnechoEnv(t, offline(cache), "run", "-q", path)
	if r.code != 0 || !strings.Contains(r.all(), "hello remote") {
		t.Fatalf("offline run from the cache: exit %d\n%s", r.code, r.all())
	}
	// Not in the cache and not reachable: the error names the module and the cache.
	r = dnechoEnv(t, offline(t.TempDir()), "run", "-q", path)
	if r.code != 107 || !strings.Contains(r.all(), "/lib/1.2.0/index.js") || !strings.Contains(r.all(), "module cache") {
		t.Errorf("uncached offline run: exit %d\n%s", r.code, r.all())
	}
}

// TestRunJslibSummaryOffline: the jslib k6-summary import works without network, through
// dnecho's own textSummary, with a one-line notice. A p(99) threshold, which the default
// summaryTrendStats lack, has its value in the data and in textSummary's THRESHOLDS (no N/A).
func TestRunJslibSummaryOffline(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "summary.js", countingScript+`
import { textSummary } from '`+jslibSummary+`';
export const options = { iterations: 2, thresholds: { iteration_duration: ['p(99)<60000'] } };
export function handleSummary(data) {
  const p99 = data.metrics.iteration_duration.values['p(99)'];
  return { stdout: 'OWN SUMMARY p99 is a ' + typeof p99 + '\n' + textSummary(data, { indent: ' ', enableColors: false }) };
}`)
	r := dnechoEnv(t, offline(t.TempDir()), "run", "-q", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	mustContain(t, r, "OWN SUMMARY p99 is a number", "TOTAL RESULTS", "done_iters", "using dnecho's built-in textSummary and jUnit",
		"✓ 'p(99)<60000' p(99)=")
	if strings.Contains(r.stdout, "N/A") {
		t.Errorf("a threshold's value is missing:\n%s", r.stdout)
	}
	if n := strings.Count(r.stderr, "built-in textSummary"); n != 1 {
		t.Errorf("the notice was logged %d times:\n%s", n, r.stderr)
	}
}
