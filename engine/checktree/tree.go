// Package checktree keeps the tree of a test's groups and checks, k6's root_group: the groups the
// script's group() calls open, the checks its check() calls name, and each check's passes and
// failures (docs/k6-compat.md#groups, docs/k6-compat.md#handlesummary).
//
// The script runner's VUs count into one shared Tree; the collector builds one from the checks and
// group_duration samples (or an aggregator's deltas of them); the summary, handleSummary's data
// and the REST API read a Clone. Creating a group or a check takes the tree's lock; counting a
// check is a lock-free atomic add, so a VU keeps the *Check it got and counts on it directly.
//
// Paths and ids are made here alone: a child's path is its parent's path, Separator and its name;
// its id is the hex MD5 of that path.
package checktree

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
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

// Tree is the group hierarchy of one test run. The zero value is not usable; use New.
type Tree struct {
	mu   sync.Mutex
	root *Group
	// byPath holds every group made, listed or detached, for GroupAt.
	byPath map[string]*Group
}

// New returns a tree holding only the root group.
func New() *Tree {
	t := &Tree{}
	t.init()
	return t
}

// init gives t its root group alone.
func (t *Tree) init() {
	t.root = &Group{tree: t, ID: RootID, attached: true}
	t.byPath = map[string]*Group{"": t.root}
}

// Root returns the root group (name and path "").
func (t *Tree) Root() *Group { return t.root }

// GroupAt returns the group with that path, making it and its missing ancestors on first use;
// a group's name is what follows the path's last Separator. It is for paths read back from the
// group tag of samples, which group() made, so it checks no names.
func (t *Tree) GroupAt(path string) *Group {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.groupAtLocked(path)
}

// CheckAt returns the check called name in the group with path groupPath, making both on first
// use, as GroupAt does.
func (t *Tree) CheckAt(groupPath, name string) *Check {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.groupAtLocked(groupPath).checkLocked(name)
}

// groupAtLocked is GroupAt. A parent is made before its child, so that it is listed first even
// when the child's path is seen first (a nested group's group_duration ends before its parent's).
func (t *Tree) groupAtLocked(path string) *Group {
	if g := t.byPath[path]; g != nil {
		return g
	}
	parentPath, name := "", path
	if i := strings.LastIndex(path, Separator); i >= 0 {
		parentPath, name = path[:i], path[i+len(Separator):]
	}
	parent := t.groupAtLocked(parentPath)
	return parent.addGroupLocked(name, path)
}

// Clone returns a copy of the listed groups and checks with the counts they have now, for readers
// (the summary, the REST API) to walk while the run goes on.
func (t *Tree) Clone() *Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	cp := New()
	cp.root.Name = t.root.Name
	t.root.copyInto(cp.root)
	return cp
}

// copyInto adds g's listed groups and checks, with their counts, to the empty group to. Callers
// hold g's tree lock; to belongs to a tree no one else holds yet.
func (g *Group) copyInto(to *Group) {
	for _, c := range g.checks {
		passes, fails := c.Counts()
		to.addCheckLocked(c.Name).Add(passes, fails)
	}
	for _, sub := range g.groups {
		sub.copyInto(to.addGroupLocked(sub.Name, sub.Path))
	}
}
