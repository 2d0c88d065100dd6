package js

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// mapModules serves remote modules from a map and counts fetches.
type mapModules struct {
	m       map[string]string
	fetches atomic.Int64
}

func (mm *mapModules) Module(_ context.Context, url string) ([]byte, error) {
	mm.fetches.Add(1)
	src, ok := mm.m[url]
	if !ok {
		return nil, fmt.Errorf("404 %s", url)
	}
	return []byte(src), nil
}

// TestRemoteModules: an https:// import, and the relative import inside it, come from the
// RemoteModules once per test; Files lists every file the test loaded.
func TestRemoteModules(t *testing.T) {
	remote := &mapModules{m: map[string]string{
		"https://example.com/lib/v1/index.js": `export { twice } from "./math.js"; export const name = "remote";`,
		"https://example.com/lib/v1/math.js":  `export function twice(x) { return 2 * x; }`,
	}}
	e := mustLoad(t, map[string]string{
		"script.js": `import { twice, name } from "https://example.com/lib/v1/index.js";
import { local } from "./local.js";
const data = open("./data.txt");
export default function () { globalThis.out = name + " " + twice(21) + " " + local + " " + data; }`,
		"local.js": `export const local = "local";`,
		"data.txt": "text",
	}, "script.js", Config{Remote: remote})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if got := global(vu, "out"); got != "remote 42 local text" {
		t.Fatalf("out %v", got)
	}
	if n := remote.fetches.Load(); n != 2 {
		t.Errorf("%d fetches for 2 remote modules in 2 VUs", n)
	}
	var names []string
	for _, f := range e.r.Files() {
		names = append(names, strings.TrimPrefix(f.Name, e.dir+"/"))
	}
	want := "data.txt local.js script.js https://example.com/lib/v1/index.js https://example.com/lib/v1/math.js"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("files %s, want %s", got, want)
	}

	_, err := load(t, map[string]string{"script.js": `import "https://example.com/missing.js"; export default function () {}`},
		"script.js", Config{Remote: remote})
	if err == nil || !strings.Contains(err.Error(), "404 https://example.com/missing.js") {
		t.Errorf("missing remote module: %v", err)
	}
}
