package options

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMarshalRoundTrip: options written with MarshalJSON read back the same, and unset options
// are null.
func TestMarshalRoundTrip(t *testing.T) {
	in := mustScript(t, `{"vus": 3, "duration": "1m30s", "stages": [{"duration": "10s", "target": 5}],
		"scenarios": {"s": {"executor": "shared-iterations", "iterations": 5}},
		"thresholds": {"checks": ["rate>0.9", {"threshold": "rate>0.5", "abortOnFail": true}]},
		"tags": {"a": "b"}, "minIterationDuration": "2s", "executionSegment": "0:1/2", "throw": true}`)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if v, ok := m["iterations"]; !ok || v != nil {
		t.Errorf("unset iterations: %v (present %v), want null", v, ok)
	}
	if m["duration"] != "1m30s" || m["minIterationDuration"] != "2s" {
		t.Errorf("durations: %s", b)
	}
	out := mustScript(t, string(b))
	again, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) || !reflect.DeepEqual(in.Thresholds, out.Thresholds) || in.MinIterationDuration != out.MinIterationDuration {
		t.Errorf("round trip:\n%s\n%s", b, again)
	}
}
