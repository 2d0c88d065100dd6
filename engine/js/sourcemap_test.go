package js

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// bundleWithMap transforms a TypeScript source as a bundler would, returning the code and its
// source map.
func bundleWithMap(t *testing.T, ts string) (code, smap string) {
	t.Helper()
	res := api.Transform(ts, api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatCommonJS,
		Sourcemap: api.SourceMapExternal, Sourcefile: "src/app.ts"})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Text)
	}
	return string(res.Code), string(res.Map)
}

// TestExternalSourceMap: a bundle whose map is a file beside it (//# sourceMappingURL=x.js.map)
// reports errors in the TypeScript source, as with an inline map; the map is among the test's
// files, so that an archive holds it.
func TestExternalSourceMap(t *testing.T) {
	code, smap := bundleWithMap(t, "type N = number;\n\nexport default function (): void {\n  const n: N = 1;\n  throw new Error(\"in ts \" + n);\n}\n")
	inline := code + "//# sourceMappingURL=data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(smap)) + "\n"
	for name, files := range map[string]map[string]string{
		"external": {"dist/bundle.js": code + "//# sourceMappingURL=bundle.js.map\n", "dist/bundle.js.map": smap},
		"inline":   {"dist/bundle.js": inline},
	} {
		e := mustLoad(t, files, "dist/bundle.js", Config{})
		err := e.vu(t, 1).RunIteration(context.Background(), iterationZero).Err
		var se *ScriptError
		if !errors.As(err, &se) || !strings.HasSuffix(se.File, "app.ts") || se.Line != 5 {
			t.Errorf("%s map: error at %s:%d, want app.ts:5 (%v)", name, se.File, se.Line, err)
		}
		if name != "external" {
			continue
		}
		found := false
		for _, f := range e.r.Files() {
			found = found || strings.HasSuffix(f.Name, "/dist/bundle.js.map")
		}
		if !found {
			t.Errorf("the map is not among the test's files")
		}
	}
}
