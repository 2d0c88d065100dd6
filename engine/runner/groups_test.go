package runner

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// groupsScript counts checks in the root group, in nested groups and in setup; teardown and the
// group "empty" hold none. One VU runs four iterations, so the counts are fixed.
const groupsScript = `
import { check, group } from "k6";
export const options = { vus: 1, iterations: 4 };
let n = 0;
export function setup() { check(1, { "setup ok": true }); }
export default function () {
  n++;
  check(n, { "is positive": (v) => v > 0, "is even": (v) => v % 2 === 0 });
  group("outer", () => {
    check(n, { "below three": (v) => v < 3 });
    group("inner", () => { check(n, { "deep": true }); });
  });
  group("empty", () => {});
}
export function teardown() {}
`

// TestScriptGroupTree pins the script runner's group tree in the three forms it is read in: the
// REST API's /v1/groups and /v1/groups/<id>, the handleSummary data's root_group and the
// --summary-export document's root_group (golden files; go test -run TestScriptGroupTree -update
// rewrites them).
func TestScriptGroupTree(t *testing.T) {
	r := startAPIRun(t, groupsScript, options.Options{})
	out := <-r.done
	if out.err != nil || out.res.Summary == nil {
		t.Fatalf("run: %v\n%s", out.err, out.logs)
	}
	code, list := r.call(http.MethodGet, "/v1/groups", "")
	if code != http.StatusOK {
		t.Fatalf("GET /v1/groups: %d %s", code, list)
	}
	testkit.Golden(t, "groups_api.json", []byte(list))

	var doc struct{ Data []json.RawMessage }
	if err := json.Unmarshal([]byte(list), &doc); err != nil || len(doc.Data) != 5 {
		t.Fatalf("groups %d (%v)", len(doc.Data), err)
	}
	for _, g := range doc.Data {
		var one struct{ ID string }
		if err := json.Unmarshal(g, &one); err != nil {
			t.Fatal(err)
		}
		code, body := r.call(http.MethodGet, "/v1/groups/"+one.ID, "")
		if want := `{"data":` + string(g) + "}"; code != http.StatusOK || body != want {
			t.Errorf("GET /v1/groups/%s: %d %s, want %s", one.ID, code, body, want)
		}
	}
	if code, body := r.call(http.MethodGet, "/v1/groups/nope", ""); code != http.StatusNotFound ||
		body != `{"errors":[{"status":"404","title":"Not Found","detail":"No group with that ID was found"}]}` {
		t.Errorf("GET /v1/groups/nope: %d %s", code, body)
	}

	data, err := out.res.Summary.JSON()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "groups_handle_summary.json", testkit.JSONMember(t, data, "root_group"))
	export, err := out.res.Summary.Export()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "groups_summary_export.json", testkit.JSONMember(t, export, "root_group"))
}
