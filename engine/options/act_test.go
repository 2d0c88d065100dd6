package options

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestOptionsThatAct decodes the options that change how a run behaves from each layer that may
// set them, and checks what consolidation makes of them.
func TestOptionsThatAct(t *testing.T) {
	script := mustScript(t, `{"minIterationDuration": "7s", "executionSegment": "1/2:1", "executionSegmentSequence": "0,1/2,1",
		"consoleOutput": "console.log", "iterations": 10, "vus": 2}`)
	c, err := Consolidate(Layers{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	if c.MinIterationDuration.V != 7*time.Second || c.ConsoleOutput.V != "console.log" {
		t.Errorf("minIterationDuration %v consoleOutput %q", c.MinIterationDuration.V, c.ConsoleOutput.V)
	}
	if c.Tuple == nil || c.Tuple.Segment.String() != "1/2:1" || c.Tuple.Sequence.String() != "0,1/2,1" {
		t.Fatalf("tuple %+v", c.Tuple)
	}
	var testOpts map[string]any
	b, _ := c.TestOptionsJSON()
	if err := json.Unmarshal(b, &testOpts); err != nil {
		t.Fatal(err)
	}
	if testOpts["executionSegment"] != "1/2:1" || testOpts["consoleOutput"] != "console.log" || testOpts["minIterationDuration"] != "7s" {
		t.Errorf("exec.test.options %s", b)
	}

	// A number is a segment too ("0.5" means 0:0.5); the environment sets the others.
	num := mustScript(t, `{"executionSegment": 0.5}`)
	env := mustEnv(t, map[string]string{"K6_MIN_ITERATION_DURATION": "250ms", "K6_CONSOLE_OUTPUT": "c.txt",
		"K6_LOG_OUTPUT": "none", "K6_COMPATIBILITY_MODE": "base"})
	c, err = Consolidate(Layers{Script: num, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tuple.Segment.String() != "0:1/2" || c.MinIterationDuration.V != 250*time.Millisecond ||
		c.ConsoleOutput.V != "c.txt" || c.LogOutput.V != "none" || c.CompatibilityModeValue() != "base" {
		t.Errorf("segment %s min %v console %q log %q mode %q", c.Tuple.Segment, c.MinIterationDuration.V,
			c.ConsoleOutput.V, c.LogOutput.V, c.CompatibilityModeValue())
	}
	// The script cannot set the log output: it is a runtime setting.
	if o := mustScript(t, `{"logOutput": "none"}`); o.LogOutput.Valid {
		t.Error("a script set logOutput")
	}
}

func TestOptionsThatActValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layers Layers
		want   string
	}{
		{"nothing set", Layers{Script: Options{}}, ""},
		{"segment out of order", Layers{Script: mustScript(t, `{"executionSegment": "1/2:1/4"}`)}, "executionSegment"},
		{"segment not in the sequence", Layers{Script: mustScript(t, `{"executionSegment": "0:1/3", "executionSegmentSequence": "0,1/2,1"}`)},
			"provided segment 0:1/3 can't be found in sequence 0,1/2,1"},
		{"unknown compatibility mode", Layers{Env: mustEnv(t, map[string]string{"K6_COMPATIBILITY_MODE": "es5"})}, "extended, base"},
		{"negative min iteration duration", Layers{Script: mustScript(t, `{"minIterationDuration": "-1s"}`)}, "minIterationDuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Consolidate(tc.layers)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("err %T, want *Error (exit 104)", err)
			}
		})
	}
}
