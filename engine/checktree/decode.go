package checktree

import "encoding/json"

// jsonGroup is a group of handleSummary's root_group as a script hands it back. Paths and ids are
// not read: they are made again from the names.
type jsonGroup struct {
	Name   string      `json:"name"`
	Groups []jsonGroup `json:"groups"`
	Checks []struct {
		Name   string `json:"name"`
		Passes int64  `json:"passes"`
		Fails  int64  `json:"fails"`
	} `json:"checks"`
}

// UnmarshalJSON reads handleSummary's root_group (docs/k6-compat.md#handlesummary) into t,
// replacing what it held, as the script holds it: groups and checks in the order given, two of
// the same name kept apart, names not checked, the counts as they are. Paths and ids are made
// from the names, as in every tree.
func (t *Tree) UnmarshalJSON(data []byte) error {
	var root jsonGroup
	if err := json.Unmarshal(data, &root); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	t.root.Name = root.Name
	root.addTo(t.root)
	return nil
}

// addTo adds j's groups and checks to g. Callers hold g's tree lock.
func (j *jsonGroup) addTo(g *Group) {
	for _, c := range j.Checks {
		g.addCheckLocked(c.Name).Add(c.Passes, c.Fails)
	}
	for i := range j.Groups {
		sub := &j.Groups[i]
		sub.addTo(g.addGroupLocked(sub.Name, g.Path+Separator+sub.Name))
	}
}
