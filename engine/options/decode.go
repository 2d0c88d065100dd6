package options

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/engine/threshold"
)

// field decodes one option key into a layer.
type field struct {
	decode func(o *Options, raw json.RawMessage) error
	// runtime marks settings a script cannot change (config file, environment and flags only).
	runtime bool
}

// fields maps k6's option keys to their decoders. Keys not listed are ignored, as k6 ignores
// option keys it does not know.
var fields = map[string]field{
	"vus":                  {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.VUs) }},
	"duration":             {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.Duration) }},
	"iterations":           {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.Iterations) }},
	"stages":               {decode: decodeStages},
	"scenarios":            {decode: decodeScenarios},
	"thresholds":           {decode: decodeThresholds},
	"tags":                 {decode: decodeTags},
	"systemTags":           {decode: func(o *Options, r json.RawMessage) error { return decodeList(r, &o.SystemTags) }},
	"summaryTrendStats":    {decode: func(o *Options, r json.RawMessage) error { return decodeList(r, &o.SummaryTrendStats) }},
	"summaryTimeUnit":      {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.SummaryTimeUnit) }},
	"setupTimeout":         {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.SetupTimeout) }},
	"teardownTimeout":      {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.TeardownTimeout) }},
	"handleSummaryTimeout": {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.HandleSummaryTimeout) }},
	"noSetup":              {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.NoSetup) }},
	"noTeardown":           {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.NoTeardown) }},
	"throw":                {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.Throw) }},
	"minIterationDuration": {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.MinIterationDuration) }},
	"executionSegment":     {decode: func(o *Options, r json.RawMessage) error { return decodeText(r, &o.ExecutionSegment) }},
	"executionSegmentSequence": {decode: func(o *Options, r json.RawMessage) error {
		return decodeText(r, &o.ExecutionSegmentSequence)
	}},
	// k6 reads consoleOutput only from K6_CONSOLE_OUTPUT and --console-output; a script or config
	// file that sets it is honoured here too (docs/k6-compat.md#where-dnecho-differs).
	"consoleOutput": {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.ConsoleOutput) }},
	"paused":        {decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.Paused) }},

	"out":           {runtime: true, decode: func(o *Options, r json.RawMessage) error { return decodeList(r, &o.Out) }},
	"summaryExport": {runtime: true, decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.SummaryExport) }},
	"summaryMode":   {runtime: true, decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.SummaryMode) }},
	"noThresholds":  {runtime: true, decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.NoThresholds) }},
	"noColor":       {runtime: true, decode: func(o *Options, r json.RawMessage) error { return json.Unmarshal(r, &o.NoColor) }},
}

// FromScript decodes the script's exported `options` (JSON as js.Script.Options returns it).
// Runtime settings such as `out` are ignored there, as in k6.
func FromScript(data []byte) (Options, error) {
	return decodeLayer(data, "script option", false)
}

// FromConfigFile decodes a JSON config file (-c/--config, K6_CONFIG): the script's option keys
// plus the runtime settings out, summaryExport, summaryMode, noThresholds and noColor.
func FromConfigFile(data []byte) (Options, error) {
	return decodeLayer(data, "config file option", true)
}

func decodeLayer(data []byte, what string, runtime bool) (Options, error) {
	var o Options
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return o, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return o, &Error{Option: what + "s", Err: fmt.Errorf("expected a JSON object: %w", err)}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := fields[k]
		if !ok || (f.runtime && !runtime) {
			continue
		}
		if err := f.decode(&o, raw[k]); err != nil {
			return o, &Error{Option: k, Err: err}
		}
	}
	return o, nil
}

func decodeStages(o *Options, raw json.RawMessage) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var st []scenario.Stage
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	if st == nil { // "stages: []" is set, to nothing
		st = []scenario.Stage{}
	}
	o.Stages = st
	return nil
}

func decodeScenarios(o *Options, raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if string(t) == "null" {
		return nil
	}
	if len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("expected an object of scenario name → scenario, got %s", t)
	}
	o.Scenarios = append(json.RawMessage(nil), t...)
	return nil
}

func decodeThresholds(o *Options, raw json.RawMessage) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	cfg, err := threshold.DecodeConfig(raw)
	if err != nil {
		return err
	}
	if cfg == nil {
		cfg = threshold.Config{}
	}
	o.Thresholds = cfg
	return nil
}

// decodeTags reads run tags; values may be strings, numbers or booleans (stringified), as for
// the tags of metric.add().
func decodeTags(o *Options, raw json.RawMessage) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("expected an object of tag name → value: %w", err)
	}
	tags := make(map[string]string, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			tags[k] = x
		case float64, bool:
			tags[k] = fmt.Sprint(x)
		default:
			return fmt.Errorf("tag %q: the value must be a string, number or boolean", k)
		}
	}
	o.Tags = tags
	return nil
}

// decodeText reads an option k6 writes as a string but scripts may give as a number (e.g.
// executionSegment: 0.5).
func decodeText(raw json.RawMessage, dst *null.Value[string]) error {
	t := bytes.TrimSpace(raw)
	if string(t) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(t, &s); err == nil {
		*dst = null.From(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(t, &n); err != nil {
		return fmt.Errorf("expected a string such as \"1/4:1/2\", got %s", t)
	}
	*dst = null.From(n.String())
	return nil
}

// decodeList reads a list of strings; an explicit empty list stays non-nil (set to nothing).
func decodeList(raw json.RawMessage, dst *[]string) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("expected a list of strings: %w", err)
	}
	if l == nil {
		l = []string{}
	}
	*dst = l
	return nil
}
