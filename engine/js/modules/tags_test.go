package modules

import (
	"testing"

	"github.com/dnecho/dnecho/engine/checktree"
)

func TestTagSetLayers(t *testing.T) {
	tree := checktree.New()
	ts := NewTagSet(map[string]string{"run": "r", "x": "run"}, tree.Root())
	if got := ts.Current().Key(); got != "group=,run=r,x=run" {
		t.Fatalf("initial %s", got)
	}
	ts.SetScenario("sc", map[string]string{"x": "scenario", "y": "1"})
	if got := ts.Current().Key(); got != "group=,run=r,scenario=sc,x=scenario,y=1" {
		t.Fatalf("scenario %s", got)
	}
	ts.Set("x", "user")
	ts.Delete("y")
	ts.Set("group", "ignored")
	g, _ := tree.Root().Child("g")
	ts.SetGroup(g)
	cur := ts.Current()
	if got := cur.Key(); got != "group=::g,run=r,scenario=sc,x=user" {
		t.Fatalf("user %s", got)
	}
	// Cached: the same pointer until something changes.
	ts.SetGroup(tree.Root())
	ts.SetGroup(g)
	if ts.Current() != cur {
		t.Fatal("tag set rebuilt without a change")
	}
	// A new activation starts from the run and scenario tags: user tags and metadata are gone.
	ts.SetMetadata("trace", "t0")
	ts.SetScenario("other", map[string]string{"y": "2"})
	if got := ts.Current().Key(); got != "group=::g,run=r,scenario=other,x=run,y=2" {
		t.Fatalf("second activation %s", got)
	}
	if ts.Metadata() != nil {
		t.Fatalf("metadata kept across activations: %v", ts.Metadata())
	}
	ts.SetMetadata("trace", "t1")
	held := ts.Metadata()
	ts.SetMetadata("trace", "t2")
	ts.DeleteMetadata("nope")
	if held["trace"] != "t1" || ts.Metadata()["trace"] != "t2" {
		t.Fatal("metadata map handed out was modified")
	}
	ts.DeleteMetadata("trace")
	if ts.Metadata() != nil || len(ts.MetadataKeys()) != 0 {
		t.Fatal("metadata not empty")
	}
}
