package js

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/js/modules/k6summary"
)

// TestBuiltinK6Summary: the stand-in for jslib's k6-summary renders the text summary and a JUnit
// report of the thresholds from handleSummary's data.
func TestBuiltinK6Summary(t *testing.T) {
	const url = "https://jslib.k6.io/k6-summary/0.0.2/index.js"
	if !k6summary.Matches(url) || k6summary.Matches("https://jslib.k6.io/k6-utils/1.4.0/index.js") {
		t.Fatal("Matches")
	}
	data, err := os.ReadFile("../summary/testdata/handle_summary.json")
	if err != nil {
		t.Fatal(err)
	}
	e := mustLoad(t, map[string]string{"script.js": `
import { textSummary, jUnit } from "` + url + `";
export default function () {}
export function handleSummary(data) {
  return { stdout: textSummary(data, { indent: "> ", enableColors: false }), junit: jUnit(data, { name: "suite" }) };
}`}, "script.js", Config{Remote: &mapModules{m: map[string]string{url: k6summary.Source}}})
	res, err := e.r.HandleSummary(context.Background(), data)
	if err != nil || len(res.Outputs) != 2 {
		t.Fatalf("handleSummary: %+v %v", res, err)
	}
	text, junit := string(res.Outputs[0].Data), string(res.Outputs[1].Data)
	for _, want := range []string{">   █ THRESHOLDS", ">     extmod_req_duration", "> ", "█ TOTAL RESULTS", "checks_succeeded"} {
		if !strings.Contains(text, want) {
			t.Errorf("text summary lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{`<testsuites tests="5" failures="2">`, `<testsuite name="suite" tests="5" failures="2">`,
		`<testcase name="checks - rate&gt;0.99">`, `<failure message="failed"></failure>`, `<testcase name="extmod_req_duration - avg&lt;2"></testcase>`} {
		if !strings.Contains(junit, want) {
			t.Errorf("JUnit report lacks %q:\n%s", want, junit)
		}
	}
}
