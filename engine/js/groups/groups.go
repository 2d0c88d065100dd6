// Package groups keeps the tree of script groups and checks of one test run, with pass/fail counts
// per check. It is the data behind the summary's root_group (docs/k6-compat.md#groups,
// docs/k6-compat.md#handlesummary).
//
// All VUs share one Tree. Creating a group or check takes the tree's lock; counting a check result is
// a lock-free atomic add, so VUs should keep the *Check they got and count on it directly.
package groups

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// Separator joins group path elements: the root path is "", a child of the root is "::name".
const Separator = "::"

// RootID is the id of the root group: the MD5 of the empty path.
const RootID = "d41d8cd98f00b204e9800998ecf8427e"

// ErrNameSeparator is returned for group and check names that contain Separator.
var ErrNameSeparator = errors.New("group and check names may not contain '" + Separator + "'")

// ID returns the id of a group or check path: the hex MD5 of the path.
func ID(path string) string {
	sum := md5.Sum([]byte(path))
	return hex.EncodeToString(sum[:])
}

// Tree is the group hierarchy of one test run. The zero value is not usable; use NewTree.
type Tree struct {
	mu   sync.Mutex
	root *Group
}

// NewTree returns a tree holding only the root group.
func NewTree() *Tree {
	t := &Tree{}
	t.root = &Group{tree: t, ID: RootID, attached: true}
	return t
}

// Root returns the root group (name and path "").
func (t *Tree) Root() *Group { return t.root }

// Group is one node of the tree. Name, Path and ID never change.
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

// Check is one named check inside a group, with its running counts.
type Check struct {
	Name, Path, ID string
	Group          *Group

	passes, fails atomic.Int64
}

// Child returns the child group with that name, creating it on first use.
func (g *Group) Child(name string) (*Group, error) {
	if strings.Contains(name, Separator) {
		return nil, ErrNameSeparator
	}
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	if c, ok := g.byName[name]; ok {
		return c, nil
	}
	c := g.newChild(name)
	c.attached = true
	g.attachLocked()
	if g.byName == nil {
		g.byName = map[string]*Group{}
	}
	g.byName[name] = c
	g.groups = append(g.groups, c)
	return c, nil
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
	c := g.newChild(name)
	if g.byName == nil {
		g.byName = map[string]*Group{}
	}
	g.byName[name] = c
	return c
}

func (g *Group) newChild(name string) *Group {
	path := g.Path + Separator + name
	return &Group{Name: name, Path: path, ID: ID(path), Parent: g, tree: g.tree}
}

// attachLocked lists g (and any detached ancestors) in its parent. Callers hold the tree lock.
func (g *Group) attachLocked() {
	for ; g != nil && !g.attached; g = g.Parent {
		g.attached = true
		g.Parent.groups = append(g.Parent.groups, g)
	}
}

// Check returns the check with that name in g, creating it on first use.
func (g *Group) Check(name string) (*Check, error) {
	if strings.Contains(name, Separator) {
		return nil, ErrNameSeparator
	}
	g.tree.mu.Lock()
	defer g.tree.mu.Unlock()
	if c, ok := g.checkBy[name]; ok {
		return c, nil
	}
	path := g.Path + Separator + name
	c := &Check{Name: name, Path: path, ID: ID(path), Group: g}
	g.attachLocked()
	if g.checkBy == nil {
		g.checkBy = map[string]*Check{}
	}
	g.checkBy[name] = c
	g.checks = append(g.checks, c)
	return c, nil
}

// Record counts one result of the check.
func (c *Check) Record(pass bool) {
	if pass {
		c.passes.Add(1)
	} else {
		c.fails.Add(1)
	}
}

// Counts returns the passes and failures recorded so far.
func (c *Check) Counts() (passes, fails int64) { return c.passes.Load(), c.fails.Load() }
