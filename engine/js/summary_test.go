package js

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandleSummary(t *testing.T) {
	out := t.TempDir()
	e := mustLoad(t, map[string]string{
		"script.js": `
export default function () {}
export function handleSummary(data) {
  const bytes = new Uint8Array([104, 105]);
  return {
    stdout: "iterations=" + data.metrics.iterations.values.count + "\n",
    stderr: "to stderr",
    [__ENV.OUT + "/summary.json"]: JSON.stringify(data.root_group),
    [__ENV.OUT + "/raw.bin"]: bytes.buffer,
  };
}`}, "script.js", Config{Env: map[string]string{"OUT": out}})
	data := `{"root_group":{"name":"","path":"","id":"d41d8cd98f00b204e9800998ecf8427e","groups":[],"checks":[]},
"metrics":{"iterations":{"type":"counter","contains":"default","values":{"count":500,"rate":49.9}}}}`
	res, err := e.r.HandleSummary(context.Background(), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Handled || len(res.Outputs) != 4 {
		t.Fatalf("result %+v", res)
	}
	// A file that exists is truncated.
	if err := os.WriteFile(filepath.Join(out, "summary.json"), bytes.Repeat([]byte("x"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := res.Write(&stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "iterations=500\n" || stderr.String() != "to stderr" {
		t.Fatalf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.json")); !strings.HasPrefix(string(b), `{"name":"","path":""`) || strings.Contains(string(b), "xxx") {
		t.Fatalf("summary.json = %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "raw.bin")); string(b) != "hi" {
		t.Fatalf("raw.bin = %q", b)
	}
}

func TestHandleSummaryDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		handled   bool
		wantErr   string
	}{
		{"no handleSummary", "export default function () {}", false, ""},
		{"returns nothing", "export default function () {}\nexport function handleSummary() {}", false, ""},
		{"returns empty", "export default function () {}\nexport function handleSummary() { return {}; }", true, ""},
		{"bad value", "export default function () {}\nexport function handleSummary() { return { stdout: 5 }; }", false, `value of "stdout"`},
		{"throws", "export default function () {}\nexport function handleSummary() { throw new Error('sum'); }", false, "Error: sum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{"s.js": tc.src}, "s.js", Config{})
			res, err := e.r.HandleSummary(context.Background(), []byte(`{}`))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || res.Handled != tc.handled {
				t.Fatalf("res %+v err %v", res, err)
			}
		})
	}
}
