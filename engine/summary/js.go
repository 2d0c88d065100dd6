package summary

import (
	"bytes"
	"encoding/json"

	"github.com/dnecho/dnecho/engine/checktree"
)

// JS returns the handleSummary `data` object (docs/k6-compat.md#handlesummary) as plain
// maps, slices, strings, numbers and booleans, ready for JSON or for a JS runtime.
// setup_data is absent when setup returned nothing, so that JS sees undefined.
func (d *Data) JS() map[string]any {
	stats := make([]any, 0, len(d.stats))
	for _, s := range d.Options.trendStatNames() {
		stats = append(stats, s)
	}
	ms := map[string]any{}
	for _, m := range d.Metrics {
		values := make(map[string]any, len(m.Values))
		for _, v := range m.Values {
			values[v.Key] = v.V
		}
		entry := map[string]any{"type": m.Type.String(), "contains": m.Contains.String(), "values": values}
		if m.Thresholds != nil {
			th := map[string]any{}
			for _, o := range m.Thresholds {
				th[o.Source] = map[string]any{"ok": o.OK}
			}
			entry["thresholds"] = th
		}
		ms[m.Name] = entry
	}
	out := map[string]any{
		"root_group": groupJS(d.Root),
		"options": map[string]any{
			"summaryTrendStats": stats,
			"summaryTimeUnit":   d.Options.TimeUnit,
			"noColor":           d.Options.NoColor,
		},
		"state": map[string]any{
			"isStdOutTTY":       d.Options.IsStdOutTTY,
			"isStdErrTTY":       d.Options.IsStdErrTTY,
			"testRunDurationMs": float64(d.Duration) / 1e6,
		},
		"metrics": ms,
	}
	if sd := d.setupData(); sd != nil {
		out["setup_data"] = sd
	}
	return out
}

// JSON is JS encoded as JSON (no HTML escaping), the form the script runner parses into its VU.
func (d *Data) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d.JS()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// setupData decodes the setup JSON; nil when absent or undecodable (k6 loses what JSON cannot
// carry, docs/k6-compat.md#script-lifecycle).
func (d *Data) setupData() any {
	if len(d.SetupData) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(d.SetupData, &v); err != nil {
		return nil
	}
	return v
}

func groupJS(g *checktree.Group) map[string]any {
	subs, cs := g.Groups(), g.Checks()
	groups := make([]any, 0, len(subs))
	for _, sub := range subs {
		groups = append(groups, groupJS(sub))
	}
	checks := make([]any, 0, len(cs))
	for _, c := range cs {
		checks = append(checks, checkJS(c))
	}
	return map[string]any{"name": g.Name, "path": g.Path, "id": g.ID, "groups": groups, "checks": checks}
}

// checkJS is a check as the data and the export show it.
func checkJS(c *checktree.Check) map[string]any {
	passes, fails := c.Counts()
	return map[string]any{"name": c.Name, "path": c.Path, "id": c.ID, "passes": passes, "fails": fails}
}
