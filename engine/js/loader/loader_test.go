package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// mapFiles is a FileSystem of absolute paths to contents.
type mapFiles map[string]string

func (m mapFiles) ReadFile(path string) ([]byte, error) {
	if s, ok := m[path]; ok {
		return []byte(s), nil
	}
	return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist}
}

func (m mapFiles) IsFile(path string) bool { _, ok := m[path]; return ok }

// mapRemote serves remote modules from a map and counts fetches.
type mapRemote struct {
	m       map[string]string
	fetches atomic.Int64
}

func (r *mapRemote) Module(_ context.Context, url string) ([]byte, error) {
	r.fetches.Add(1)
	if s, ok := r.m[url]; ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("404 %s", url)
}

func TestResolve(t *testing.T) {
	s := New(mapFiles{
		"/t/lib/a.js": "", "/t/lib/b.ts": "", "/t/pkg/index.mjs": "", "/t/c.json.js": "",
	}, nil)
	for _, tc := range []struct {
		dir, spec, name string
		file            bool
		err             string
	}{
		{"/t", "./lib/a.js", "/t/lib/a.js", true, ""},
		{"/t/lib", "./b", "/t/lib/b.ts", true, ""},
		{"/t/lib", "../pkg", "/t/pkg/index.mjs", true, ""},
		{"/t", "file:///t/lib/a.js", "/t/lib/a.js", true, ""},
		{"/t", "./c.json", "/t/c.json.js", true, ""},
		{"/t", "./missing", "", false, `cannot find module "./missing" (looked for /t/missing)`},
		{"/t", "k6/metrics", "k6/metrics", false, ""},
		{"/t", "https://x.io/v1/m.js", "https://x.io/v1/m.js", true, ""},
		{"https://x.io/v1", "./n.js", "https://x.io/v1/n.js", true, ""},
		{"https://x.io/v1", "../v2/n.js", "https://x.io/v2/n.js", true, ""},
		{"/t", "http://x.io/m.js", "", false, `import "http://x.io/m.js": remote modules must use https://`},
	} {
		name, file, err := s.Resolve(tc.dir, tc.spec)
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || name != tc.name || file != tc.file {
			t.Errorf("Resolve(%q, %q) = %q, %v, %v; want %q, %v, %q", tc.dir, tc.spec, name, file, err, tc.name, tc.file, tc.err)
		}
	}
}

// run evaluates a compiled module's body in a fresh runtime and returns what it threw.
func run(t *testing.T, m *Module) error {
	t.Helper()
	rt := goja.New()
	fv, err := rt.RunProgram(m.Program)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	fn, ok := goja.AssertFunction(fv)
	if !ok {
		t.Fatalf("%s: the module is not a function", m.Name)
	}
	exports := rt.NewObject()
	module := rt.NewObject()
	_ = module.Set("exports", exports)
	_, err = fn(goja.Undefined(), exports, goja.Undefined(), module, rt.ToValue(m.Name), rt.ToValue(m.Dir), goja.Undefined())
	return err
}

// TestCompilePositions: a module's runtime positions and its syntax errors point into the
// original file: TypeScript, and a bundle whose map is a file beside it, which becomes one of
// the test's files.
func TestCompilePositions(t *testing.T) {
	ts := "type N = number;\n\nconst n: N = 1;\nthrow new Error(\"in ts \" + n);\n"
	bundle := api.Transform(ts, api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatCommonJS,
		Sourcemap: api.SourceMapExternal, Sourcefile: "/t/src/app.ts"})
	s := New(mapFiles{
		"/t/app.ts":            ts,
		"/t/dist/app.js":       string(bundle.Code) + "//# sourceMappingURL=app.js.map\n",
		"/t/dist/app.js.map":   string(bundle.Map),
		"/t/bad.ts":            "const a: number = 1;\nconst b = ;\n",
		"/t/dist/nomap.js":     "throw new Error('x');\n//# sourceMappingURL=gone.js.map\n",
		"/t/dist/unrelated.js": "",
	}, nil)
	for _, tc := range []struct{ name, dir, at string }{
		{"/t/app.ts", "/t", "/t/app.ts:4:7"},
		{"/t/dist/app.js", "/t/dist", "/t/src/app.ts:4:7"},
		{"/t/dist/nomap.js", "/t/dist", "/t/dist/nomap.js:1:7"},
	} {
		m, err := s.Compile(tc.name, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Dir != tc.dir {
			t.Errorf("%s: Dir %s", tc.name, m.Dir)
		}
		var ex *goja.Exception
		if err := run(t, m); !errors.As(err, &ex) || !strings.Contains(ex.String(), tc.at) {
			t.Errorf("%s: %v, want a throw at %s", tc.name, err, tc.at)
		}
	}
	_, err := s.Compile("/t/bad.ts", nil)
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != "/t/bad.ts" || se.Line != 2 || !strings.HasPrefix(se.Message, "SyntaxError: ") {
		t.Errorf("bad.ts: %#v", err)
	}
	var names []string
	for _, f := range s.Files() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "/t/app.ts /t/dist/app.js /t/dist/app.js.map /t/dist/nomap.js" {
		t.Errorf("files %s", got)
	}
}

// TestOpen: a file is read once and shared; after Freeze only files already read may be opened.
func TestOpen(t *testing.T) {
	files := mapFiles{"/t/a.txt": "alpha", "/t/b.txt": "beta"}
	s := New(files, nil)
	data, text, err := s.Open("/t/sub", "../a.txt")
	if err != nil || string(data) != "alpha" || text != "alpha" {
		t.Fatalf("Open: %q %q %v", data, text, err)
	}
	files["/t/a.txt"] = "changed"
	if _, text, _ := s.Open("/", "/t/a.txt"); text != "alpha" {
		t.Errorf("a second Open read the file again: %q", text)
	}
	if _, _, err := s.Open("/t", "missing.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	s.Freeze()
	if _, text, err := s.Open("/t", "a.txt"); err != nil || text != "alpha" {
		t.Errorf("after Freeze, a file read before: %q %v", text, err)
	}
	var never *NeverOpenedError
	if _, _, err := s.Open("/t", "b.txt"); !errors.As(err, &never) || never.Path != "/t/b.txt" {
		t.Errorf("after Freeze, a new file: %v", err)
	}
	if got := s.Files(); len(got) != 1 || got[0].Name != "/t/a.txt" {
		t.Errorf("files %v", got)
	}
}

// TestRemote: a remote module is fetched once however often it is compiled, an external map
// reference in it is left alone, and without RemoteModules an https:// module is ErrNoRemote.
func TestRemote(t *testing.T) {
	remote := &mapRemote{m: map[string]string{"https://x.io/m.js": "exports.a = 1;\n//# sourceMappingURL=m.js.map\n"}}
	s := New(mapFiles{}, remote)
	for range 2 {
		m, err := s.Compile("https://x.io/m.js", nil)
		if err != nil || m.Dir != "https://x.io/" {
			t.Fatalf("Compile: %+v %v", m, err)
		}
	}
	if n := remote.fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
	if _, err := s.Compile("https://x.io/none.js", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing remote module: %v", err)
	}
	if _, err := New(mapFiles{}, nil).Compile("https://x.io/m.js", nil); !errors.Is(err, ErrNoRemote) {
		t.Errorf("without RemoteModules: %v", err)
	}
}
