package ingest

import (
	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// sampleTree derives the summary's group and check tree from samples: checks samples carry the
// group and check tags, group_duration samples the group tag. This keeps the k6 module free of a
// second reporting channel. It needs the group and check system tags, which are on by default.
// The collector's lock guards it.
type sampleTree struct {
	tree *checktree.Tree
	// checks caches the tree's checks, so that a sample costs one map lookup and no tree lock.
	checks map[checkKey]*checktree.Check
}

type checkKey struct{ group, name string }

func newSampleTree() *sampleTree {
	return &sampleTree{tree: checktree.New(), checks: map[checkKey]*checktree.Check{}}
}

// addGroup lists the group with that path (and its ancestors).
func (t *sampleTree) addGroup(path string) { t.tree.GroupAt(path) }

func (t *sampleTree) addGroupSample(s *metrics.Sample) {
	p, _ := s.Tags.Get("group")
	t.addGroup(p)
}

func (t *sampleTree) addCheck(s *metrics.Sample) {
	name, ok := s.Tags.Get("check")
	if !ok {
		return
	}
	gp, _ := s.Tags.Get("group")
	t.check(gp, name).Record(s.Value != 0)
}

// check returns the check called name in the group with that path, making both on first use.
func (t *sampleTree) check(groupPath, name string) *checktree.Check {
	k := checkKey{groupPath, name}
	c := t.checks[k]
	if c == nil {
		c = t.tree.CheckAt(groupPath, name)
		t.checks[k] = c
	}
	return c
}

// snapshot returns a copy of the tree's root with the counts it has now.
func (t *sampleTree) snapshot() *checktree.Group { return t.tree.Clone().Root() }
