package xdnecho

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// TestTypingsNameEveryMetric: js/index.d.ts, the module's contract, names every metric a
// `dnecho run` with this module emits: the calls', the network watch's, the verdict's and the
// arrival-rate start delay.
func TestTypingsNameEveryMetric(t *testing.T) {
	b, err := os.ReadFile("../js/index.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	if _, err := echometrics.Register(reg); err != nil {
		t.Fatal(err)
	}
	names := []string{echometrics.IterationStartDelay}
	for _, m := range reg.All() {
		names = append(names, m.Name)
	}
	if len(names) < 9 {
		t.Fatalf("%d metrics registered: %v", len(names), names)
	}
	for _, n := range names {
		if !strings.Contains(string(b), "`"+n+"`") {
			t.Errorf("js/index.d.ts does not name %s", n)
		}
	}
}

// typescriptDir is where scripts/test-deps.sh installs TypeScript and @types/k6 (npm, pinned).
func typescriptDir(t *testing.T) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cache, "dnecho", "typescript")
}

// TestTypeScriptExamples: with the shipped examples/tsconfig.json, tsc --noEmit finds
// `k6/x/dnecho` (js/index.d.ts, through `paths`) and the k6 modules (@types/k6) and accepts every
// TypeScript example, while a copy with a typing error is refused, so the check can fail; with
// examples/jsconfig.json an editor's TypeScript service loads the same typings for the JavaScript
// examples. The layout is a user's: examples/ beside js/, @types/k6 in a node_modules above.
func TestTypeScriptExamples(t *testing.T) {
	tsDir := typescriptDir(t)
	tsc := filepath.Join(tsDir, "node_modules", ".bin", "tsc")
	_, err := os.Stat(tsc)
	testdeps.Require(t, "tsc (typescript and @types/k6 from npm)", err, "scripts/test-deps.sh installs them")
	root := t.TempDir()
	examples := filepath.Join(root, "examples")
	for _, pattern := range []string{"*.ts", "*.js", "*config.json"} {
		files, _ := filepath.Glob(filepath.Join(examplesDir, pattern))
		for _, f := range files {
			copyFile(t, f, filepath.Join(examples, filepath.Base(f)))
		}
	}
	copyFile(t, "../js/index.d.ts", filepath.Join(root, "js", "index.d.ts"))
	if err := os.Symlink(filepath.Join(tsDir, "node_modules"), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if out, err := runTSC(t, tsc, "-p", examples); err != nil {
		t.Errorf("tsc -p examples: %v\n%s", err, out)
	}
	out, err := runTSC(t, tsc, "-p", filepath.Join(examples, "jsconfig.json"), "--listFiles")
	for _, want := range []string{filepath.Join(root, "js", "index.d.ts"), filepath.Join("@types", "k6", "index.d.ts"), "quickstart.js"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("tsc -p examples/jsconfig.json: %v, %s not loaded:\n%s", err, want, out)
		}
	}
	broken := "import dnecho from 'k6/x/dnecho';\nconst client = new dnecho.Client({ containerId: 1 });\n" +
		"export default function (): void { client.echo({ payloadResp: true }); }\n"
	if err := os.WriteFile(filepath.Join(examples, "broken.ts"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runTSC(t, tsc, "-p", examples)
	if err == nil || !strings.Contains(out, "broken.ts(3,") || !strings.Contains(out, "TS2322") {
		t.Errorf("a boolean payloadResp passed the check: %v\n%s", err, out)
	}
}

// runTSC runs tsc, bounded in time, and returns what it printed.
func runTSC(t *testing.T, tsc string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, tsc, args...).CombinedOutput()
	return string(out), err
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
