package groups

// GroupSummary is the summary shape of a group (docs/k6-compat.md#handlesummary root_group):
// JSON-ready, with `groups` and `checks` as arrays in creation order.
type GroupSummary struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	ID     string         `json:"id"`
	Groups []GroupSummary `json:"groups"`
	Checks []CheckSummary `json:"checks"`
}

// CheckSummary is the summary shape of a check (docs/k6-compat.md#handlesummary).
type CheckSummary struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	ID     string `json:"id"`
	Passes int64  `json:"passes"`
	Fails  int64  `json:"fails"`
}

// Summary returns a snapshot of the tree for handleSummary data and summary exports.
func (t *Tree) Summary() GroupSummary {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.root.summaryLocked()
}

func (g *Group) summaryLocked() GroupSummary {
	s := GroupSummary{
		Name: g.Name, Path: g.Path, ID: g.ID,
		// Empty arrays rather than null: scripts iterate over them.
		Groups: make([]GroupSummary, 0, len(g.groups)),
		Checks: make([]CheckSummary, 0, len(g.checks)),
	}
	for _, c := range g.groups {
		s.Groups = append(s.Groups, c.summaryLocked())
	}
	for _, c := range g.checks {
		p, f := c.Counts()
		s.Checks = append(s.Checks, CheckSummary{Name: c.Name, Path: c.Path, ID: c.ID, Passes: p, Fails: f})
	}
	return s
}
