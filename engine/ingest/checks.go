package ingest

import (
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Group is a node of the group tree: the groups and checks seen under one group path, in
// first-seen order. The root group has an empty name and path; nested paths are "::a::b".
type Group struct {
	Name, Path string
	Groups     []*Group
	Checks     []*Check
}

// Check is the pass/fail tally of one check within one group. Path is "<group path>::<name>".
type Check struct {
	Name, Path    string
	Passes, Fails int64
}

// checkTree derives the summary's group tree from samples: checks samples carry the group and
// check tags, group_duration samples the group tag. This keeps the k6 module free of a second
// reporting channel. It needs the group and check system tags, which are on by default.
type checkTree struct {
	root   *Group
	groups map[string]*Group
	checks map[string]*Check // by check path
}

func newCheckTree() *checkTree {
	root := &Group{}
	return &checkTree{root: root, groups: map[string]*Group{"": root}, checks: map[string]*Check{}}
}

func (t *checkTree) addGroupSample(s *metrics.Sample) {
	p, _ := s.Tags.Get("group")
	t.group(p)
}

func (t *checkTree) addCheck(s *metrics.Sample) {
	name, ok := s.Tags.Get("check")
	if !ok {
		return
	}
	gp, _ := s.Tags.Get("group")
	c := t.check(gp, name)
	if s.Value != 0 {
		c.Passes++
	} else {
		c.Fails++
	}
}

// check returns the tally of a check in a group, creating both.
func (t *checkTree) check(groupPath, name string) *Check {
	path := groupPath + "::" + name
	c := t.checks[path]
	if c == nil {
		g := t.group(groupPath)
		c = &Check{Name: name, Path: path}
		g.Checks = append(g.Checks, c)
		t.checks[path] = c
	}
	return c
}

// group returns the node for a path, creating it and its ancestors. A child's group_duration
// sample arrives before its parent's, so creating ancestors first keeps parents ahead of children.
func (t *checkTree) group(path string) *Group {
	if g := t.groups[path]; g != nil {
		return g
	}
	parentPath, name := "", path
	if i := strings.LastIndex(path, "::"); i >= 0 {
		parentPath, name = path[:i], path[i+2:]
	}
	parent := t.group(parentPath)
	g := &Group{Name: name, Path: path}
	parent.Groups = append(parent.Groups, g)
	t.groups[path] = g
	return g
}

func copyGroup(g *Group) *Group {
	cp := &Group{Name: g.Name, Path: g.Path}
	for _, c := range g.Checks {
		cc := *c
		cp.Checks = append(cp.Checks, &cc)
	}
	for _, sub := range g.Groups {
		cp.Groups = append(cp.Groups, copyGroup(sub))
	}
	return cp
}
