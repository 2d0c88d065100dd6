package checktree

import "strings"

// Group is one group of the tree: the root, or what a script's group(name, fn) runs in. Name,
// Path, ID and Parent never change.
type Group struct {
	Name, Path, ID string
	Parent         *Group

	tree *Tree
	// attached is false for a detached group (see Detached) until something is recorded in it.
	attached bool
	groups   []*Group
	checks   []*Check
	byName   map[string]*Group
	checkBy  map[string]*Check
}

// Groups returns the listed subgroups in the order they were made.
func (g *Group) Groups() []*Group {
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	return g.groups[:len(g.groups):len(g.groups)]
}

// Checks returns the group's checks in the order they were made.
func (g *Group) Checks() []*Check {
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	return g.checks[:len(g.checks):len(g.checks)]
}

// Child returns the child group with that name, making it on first use.
func (g *Group) Child(name string) (*Group, error) {
	if strings.Contains(name, Separator) {
		return nil, ErrNameSeparator
	}
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	if c, ok := g.byName[name]; ok {
		return c, nil
	}
	return g.addGroupLocked(name, g.Path+Separator+name), nil
}

// Detached returns a child group that is listed in its parent only once a check or a subgroup is
// recorded in it. The runner uses it for the "setup" and "teardown" groups, which exist for tagging
// on every run but should only show in the summary when they hold checks.
func (g *Group) Detached(name string) *Group {
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	if c, ok := g.byName[name]; ok {
		return c
	}
	c := g.newGroup(name, g.Path+Separator+name)
	g.tree.byPath[c.Path] = c
	g.indexLocked(c)
	return c
}

// Check returns the check with that name in g, making it on first use.
func (g *Group) Check(name string) (*Check, error) {
	if strings.Contains(name, Separator) {
		return nil, ErrNameSeparator
	}
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	return g.checkLocked(name), nil
}

// newGroup makes a child of g, unlisted; the one place a group's id is computed.
func (g *Group) newGroup(name, path string) *Group {
	return &Group{Name: name, Path: path, ID: ID(path), Parent: g, tree: g.tree}
}

// addGroupLocked makes a child of g with that name and path and lists it (and g). Callers hold
// the tree lock.
func (g *Group) addGroupLocked(name, path string) *Group {
	c := g.newGroup(name, path)
	c.attached = true
	g.attachLocked()
	g.tree.byPath[path] = c
	g.indexLocked(c)
	g.groups = append(g.groups, c)
	return c
}

// indexLocked makes c what Child and Detached return for its name; the first of two groups of the
// same name (read back from JSON) keeps it.
func (g *Group) indexLocked(c *Group) {
	if g.byName == nil {
		g.byName = map[string]*Group{}
	}
	if _, dup := g.byName[c.Name]; !dup {
		g.byName[c.Name] = c
	}
}

// attachLocked lists g (and any detached ancestors) in its parent. Callers hold the tree lock.
func (g *Group) attachLocked() {
	for ; g != nil && !g.attached; g = g.Parent {
		g.attached = true
		g.Parent.groups = append(g.Parent.groups, g)
	}
}

// checkLocked returns the check with that name in g, making it on first use. Callers hold the
// tree lock.
func (g *Group) checkLocked(name string) *Check {
	if c, ok := g.checkBy[name]; ok {
		return c
	}
	return g.addCheckLocked(name)
}

// addCheckLocked makes a check in g and lists it (and g); the one place a check's id is computed.
// Callers hold the tree lock.
func (g *Group) addCheckLocked(name string) *Check {
	path := g.Path + Separator + name
	c := &Check{Name: name, Path: path, ID: ID(path), Group: g}
	g.attachLocked()
	if g.checkBy == nil {
		g.checkBy = map[string]*Check{}
	}
	if _, dup := g.checkBy[name]; !dup {
		g.checkBy[name] = c
	}
	g.checks = append(g.checks, c)
	return c
}
