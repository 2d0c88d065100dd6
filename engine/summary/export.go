package summary

import (
	"bytes"
	"encoding/json"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Export renders the --summary-export document (docs/k6-compat.md#summary-export): no options
// or state, each metric's values flattened with thresholds as {expr: failed}, a Rate's rate
// renamed value, groups and checks keyed by name, 4-space indentation. HTML escaping is off
// so that `p(95)<200` stays readable; JSON readers see the same strings.
func (d *Data) Export() ([]byte, error) {
	ms := map[string]any{}
	for _, m := range d.Metrics {
		entry := map[string]any{}
		for _, v := range m.Values {
			key := v.Key
			if m.Type == metrics.Rate && key == "rate" {
				key = "value"
			}
			entry[key] = v.V
		}
		if m.Thresholds != nil {
			th := map[string]any{}
			for _, o := range m.Thresholds {
				th[o.Source] = !o.OK
			}
			entry["thresholds"] = th
		}
		ms[m.Name] = entry
	}
	doc := map[string]any{"root_group": groupExport(d.Root), "metrics": ms}
	if sd := d.setupData(); sd != nil {
		doc["setup_data"] = sd
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func groupExport(g *checktree.Group) map[string]any {
	groups := map[string]any{}
	for _, sub := range g.Groups() {
		groups[sub.Name] = groupExport(sub)
	}
	checks := map[string]any{}
	for _, c := range g.Checks() {
		checks[c.Name] = checkJS(c)
	}
	return map[string]any{"name": g.Name, "path": g.Path, "id": g.ID, "groups": groups, "checks": checks}
}
