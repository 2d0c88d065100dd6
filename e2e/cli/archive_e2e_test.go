package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archiveTestScript imports a local module, a remote one and opens a data file.
func archiveTestScript(t *testing.T, srv *moduleServer) (dir, script string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"lib/helper.js": `export function double(x) { return 2 * x; }`,
		"data.json":     `[1, 2, 3]`,
		"main.js": `
import { double } from './lib/helper.js';
import { greet } from '` + srv.URL + `/greet/1.0.0/index.js';
import { Counter } from 'k6/metrics';
const data = JSON.parse(open('./data.json'));
const seen = new Counter('seen');
export const options = { vus: 2, iterations: 4, thresholds: { seen: ['count>0'] }, ext: { loadimpact: { name: 'arc' } } };
export default function () { seen.add(double(data.length)); console.log(greet(__ENV.WHO)); }`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "main.js")
}

// TestArchiveAndRunIt: dnecho archive writes k6's layout with the local and remote files; the
// archive then runs with neither the files nor the module server, and inspects the same.
func TestArchiveAndRunIt(t *testing.T) {
	t.Parallel()
	srv := newModuleServer(t, map[string]string{"/greet/1.0.0/index.js": `export const greet = (w) => 'hello ' + w;`})
	dir, script := archiveTestScript(t, srv)
	tarPath := filepath.Join(t.TempDir(), "test.tar")
	env := []string{"DNECHO_MODULE_CACHE=" + t.TempDir(), "SSL_CERT_FILE=" + srv.caFile}
	r := dnechoEnv(t, env, "archive", "-O", tarPath, "-e", "WHO=archive", "--tag", "run=arc", script)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("archive: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	entries, meta := readTar(t, tarPath)
	host := strings.TrimPrefix(srv.URL, "https://")
	for _, want := range []string{
		"metadata.json", "data", "file" + dir + "/data.json", "file" + dir + "/lib/helper.js",
		"file" + dir + "/main.js -> data", "https/" + host + "/greet/1.0.0/index.js",
	} {
		if !strings.Contains(strings.Join(entries, "\n"), want) {
			t.Errorf("archive lacks %s:\n%s", want, strings.Join(entries, "\n"))
		}
	}
	if entries[0] != "metadata.json" || entries[1] != "data" {
		t.Errorf("first entries %v", entries[:2])
	}
	if meta.Type != "js" || meta.Filename != "file://"+script || meta.Env["WHO"] != "archive" ||
		meta.Options["tags"] == nil || meta.CompatibilityMode != "extended" {
		t.Errorf("metadata %+v", meta)
	}

	// Elsewhere: no source files, no module server, an empty module cache.
	srv.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(t.TempDir(), "summary.json")
	r = dnechoEnv(t, offline(t.TempDir()), "run", "-q", "--summary-export", export, tarPath)
	if r.code != 0 || !strings.Contains(r.all(), "hello archive") {
		t.Fatalf("run the archive: exit %d\n%s", r.code, r.all())
	}
	if n := readExport(t, export).count("seen"); n != 24 {
		t.Errorf("seen %v, want 4 iterations × 6", n)
	}
	// -e at run time wins over the archived variables.
	r = dnechoEnv(t, offline(t.TempDir()), "run", "-q", "-e", "WHO=flag", tarPath)
	if r.code != 0 || !strings.Contains(r.all(), "hello flag") {
		t.Errorf("run -e: exit %d\n%s", r.code, r.all())
	}

	r = dnechoEnv(t, offline(t.TempDir()), "inspect", "--execution-requirements", tarPath)
	doc := inspectJSON(t, r)
	if doc["maxVUs"] != float64(2) || doc["totalDuration"] != "10m30s" || doc["vus"] != float64(2) {
		t.Errorf("inspect: maxVUs %v totalDuration %v vus %v", doc["maxVUs"], doc["totalDuration"], doc["vus"])
	}
}

// TestInspect: stdout is one JSON value; without --execution-requirements the script's own
// options (unknown keys kept, unset keys null), with it the consolidated options and the plan.
func TestInspect(t *testing.T) {
	t.Parallel()
	path := writeRunScript(t, "inspect.js", `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1 });
export const options = {
  scenarios: { steady: { executor: 'constant-vus', vus: 10, duration: '1m', gracefulStop: '10s' } },
  thresholds: { dnecho_req_duration: ['p(99)<5'] },
  cloud: { name: 'nightly', projectID: 42 },
};
export default function () { client.echo(); }`)
	r := dnechoEnv(t, []string{"K6_SETUP_TIMEOUT=7s"}, "--log-format", "json", "inspect", path)
	doc := inspectJSON(t, r)
	if doc["cloud"].(map[string]any)["projectID"] != float64(42) || doc["setupTimeout"] != nil || doc["iterations"] != nil {
		t.Errorf("script options: %v", doc)
	}
	if _, ok := doc["maxVUs"]; ok {
		t.Error("maxVUs without --execution-requirements")
	}
	r = dnechoEnv(t, []string{"K6_SETUP_TIMEOUT=7s"}, "inspect", "--execution-requirements", path)
	doc = inspectJSON(t, r)
	if doc["maxVUs"] != float64(10) || doc["totalDuration"] != "1m10s" || doc["setupTimeout"] != "7s" ||
		doc["thresholds"].(map[string]any)["dnecho_req_duration"] == nil {
		t.Errorf("execution requirements: %v", doc)
	}
	if r := dnecho(t, runLimit, "inspect", filepath.Join(t.TempDir(), "missing.js")); r.code == 0 || r.stdout != "" {
		t.Errorf("missing script: exit %d stdout %q", r.code, r.stdout)
	}
}

// TestVersionAndGlobalFlags: `dnecho version`, and k6's root flags before the command name.
func TestVersionAndGlobalFlags(t *testing.T) {
	t.Parallel()
	r := dnecho(t, runLimit, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "dnecho ") || !strings.Contains(r.stdout, "linux/") {
		t.Errorf("version: exit %d %q", r.code, r.stdout)
	}
	path := writeRunScript(t, "g.js", countingScript+`export const options = { iterations: 1 };`)
	r = dnecho(t, runLimit, "--quiet", "--log-output", "none", "run", path)
	if r.code != 0 || strings.Contains(r.stdout, "scenarios:") || strings.Contains(r.stdout, "running (") {
		t.Errorf("--quiet before run: exit %d\n%s", r.code, r.all())
	}
	if !strings.Contains(r.stdout, "TOTAL RESULTS") {
		t.Errorf("no summary:\n%s", r.stdout)
	}
}

type archiveMeta struct {
	Type              string            `json:"type"`
	Filename          string            `json:"filename"`
	Env               map[string]string `json:"env"`
	Options           map[string]any    `json:"options"`
	CompatibilityMode string            `json:"compatibilityMode"`
}

// readTar lists a tar's entries ("name -> link" for hard links) and decodes its metadata.json.
func readTar(t *testing.T, path string) ([]string, archiveMeta) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var names []string
	var meta archiveMeta
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if h.Typeflag == tar.TypeLink {
			name += " -> " + h.Linkname
		}
		if h.Name == "metadata.json" {
			data, _ := io.ReadAll(tr)
			if err := json.Unmarshal(data, &meta); err != nil {
				t.Fatalf("metadata.json: %v\n%s", err, data)
			}
		}
		names = append(names, name)
	}
	return names, meta
}

// inspectJSON parses inspect's stdout, which must hold one JSON object and nothing else.
func inspectJSON(t *testing.T, r runResult) map[string]any {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("inspect: exit %d\n%s", r.code, r.all())
	}
	var doc map[string]any
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" {
		t.Fatalf("stdout holds more than the JSON: %q", rest)
	}
	return doc
}

// TestArchiveRefusesThresholds: thresholds a run would refuse are refused when archiving (104),
// with one line naming the metric; a custom metric the init context registers is known.
func TestArchiveRefusesThresholds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ thresholds, want string }{
		{`{ nope: ['count<1'] }`, `invalid threshold defined on nope; reason: no metric name "nope" found`},
		{`{ iterations: ['avg<1'] }`, `unsupported aggregation method "avg" on metric "iterations"`},
		{`{ mine: ['p95<<1'] }`, `malformed threshold expression "p95<<1"`},
	} {
		script := writeRunScript(t, "test.js", `
import { Trend } from 'k6/metrics';
new Trend('mine');
export const options = { thresholds: `+tc.thresholds+` };
export default function () {}`)
		r := dnecho(t, runLimit, "archive", "-O", filepath.Join(t.TempDir(), "a.tar"), script)
		if r.code != 104 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, want 104 and one line with %q\n%s", tc.thresholds, r.code, tc.want, r.all())
		}
	}
	script := writeRunScript(t, "test.js", `
import { Trend } from 'k6/metrics';
new Trend('mine');
export const options = { thresholds: { mine: ['p(95)<1'] } };
export default function () {}`)
	if r := dnecho(t, runLimit, "archive", "-O", filepath.Join(t.TempDir(), "a.tar"), script); r.code != 0 {
		t.Errorf("a threshold on a custom metric: exit %d\n%s", r.code, r.all())
	}
}

// TestArchiveKeepsCloud: the script's options.cloud, which k6-operator reads, is in the archive.
func TestArchiveKeepsCloud(t *testing.T) {
	t.Parallel()
	script := writeRunScript(t, "test.js", `
export const options = { vus: 1, cloud: { name: 'nightly', projectID: 42 } };
export default function () {}`)
	out := filepath.Join(t.TempDir(), "a.tar")
	if r := dnecho(t, runLimit, "archive", "-O", out, script); r.code != 0 {
		t.Fatalf("archive: exit %d\n%s", r.code, r.all())
	}
	_, meta := readTar(t, out)
	cloud, _ := meta.Options["cloud"].(map[string]any)
	if cloud["name"] != "nightly" || cloud["projectID"] != float64(42) {
		t.Errorf("options.cloud in the archive: %v", meta.Options["cloud"])
	}
}
