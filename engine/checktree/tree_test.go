package checktree

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// dump writes g's listed tree, one node a line: groups as "path id", checks as
// "path id passes/fails", each node's checks before its groups.
func dump(g *Group) string {
	var b strings.Builder
	var walk func(g *Group)
	walk = func(g *Group) {
		fmt.Fprintf(&b, "%q %s\n", g.Path, g.ID)
		for _, c := range g.Checks() {
			p, f := c.Counts()
			fmt.Fprintf(&b, "%q %s %d/%d\n", c.Path, c.ID, p, f)
		}
		for _, sub := range g.Groups() {
			walk(sub)
		}
	}
	walk(g)
	return b.String()
}

func TestIDs(t *testing.T) {
	if got := ID(""); got != RootID {
		t.Fatalf("ID(\"\") = %s, want %s", got, RootID)
	}
	tr := New()
	g, err := tr.Root().Child("outer")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := g.Child("inner")
	if in.Path != "::outer::inner" || in.ID != ID("::outer::inner") || in.Parent != g {
		t.Fatalf("inner = %q %q", in.Path, in.ID)
	}
	c, _ := in.Check("ok")
	if c.Path != "::outer::inner::ok" || c.ID != ID("::outer::inner::ok") || c.Group != in {
		t.Fatalf("check = %q %q", c.Path, c.ID)
	}
	if _, err := g.Child("a::b"); !errors.Is(err, ErrNameSeparator) {
		t.Fatalf("Child(a::b) err = %v", err)
	}
	if _, err := g.Check("a::b"); !errors.Is(err, ErrNameSeparator) {
		t.Fatalf("Check(a::b) err = %v", err)
	}
	// A path read back from samples names the same node, with the same id.
	if tr.GroupAt("::outer::inner") != in || tr.CheckAt("::outer::inner", "ok") != c {
		t.Fatal("GroupAt or CheckAt made a second node for a path the tree holds")
	}
}

func TestDetachedGroupShowsOnlyWhenUsed(t *testing.T) {
	tr := New()
	setup := tr.Root().Detached("setup")
	if setup.Path != "::setup" {
		t.Fatalf("path %q", setup.Path)
	}
	if n := len(tr.Root().Groups()); n != 0 {
		t.Fatalf("unused detached group listed: %d groups", n)
	}
	// Child returns the detached node and, as before anything is recorded, leaves it unlisted.
	if c, _ := tr.Root().Child("setup"); c != setup || len(tr.Root().Groups()) != 0 {
		t.Fatal("Child listed or replaced the detached group")
	}
	c, _ := setup.Check("x")
	c.Record(true)
	gs := tr.Root().Groups()
	if len(gs) != 1 || gs[0] != setup {
		t.Fatalf("groups %v", gs)
	}
	// Asking again returns the same node and does not list it twice.
	if tr.Root().Detached("setup") != setup {
		t.Fatal("Detached returned a new node")
	}
	setup.Check("y")
	if len(tr.Root().Groups()) != 1 {
		t.Fatal("detached group listed twice")
	}
}

func TestConcurrentCounts(t *testing.T) {
	tr := New()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for j := 0; j < 1000; j++ {
				c, _ := tr.Root().Check("c")
				c.Record(j%2 == 0)
			}
		})
	}
	// Readers walk the live tree while the VUs count.
	wg.Go(func() {
		for j := 0; j < 100; j++ {
			_ = dump(tr.Clone().Root())
		}
	})
	wg.Wait()
	want := fmt.Sprintf("\"\" %s\n\"::c\" %s 4000/4000\n", RootID, ID("::c"))
	if got := dump(tr.Root()); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
}

// TestGroupAt builds trees from the group paths samples carry, in the order they arrive.
func TestGroupAt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string // a group path, or "group path|check name"
		want  []string // listed groups by path, depth first, checks left out
	}{
		{"parent before child", []string{"::a::b", "::a"}, []string{"", "::a", "::a::b"}},
		{"check makes its group", []string{"::x|ok", "::y"}, []string{"", "::x", "::y"}},
		{"root checks", []string{"|ok", "|ok"}, []string{""}},
		{"path without a leading separator", []string{"a", "::a"}, []string{"", "a", "::a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New()
			for _, p := range tc.paths {
				if gp, check, ok := strings.Cut(p, "|"); ok {
					tr.CheckAt(gp, check).Record(true)
				} else {
					tr.GroupAt(p)
				}
			}
			var got []string
			var walk func(g *Group)
			walk = func(g *Group) {
				got = append(got, g.Path)
				if g.ID != ID(g.Path) {
					t.Errorf("%q: id %s", g.Path, g.ID)
				}
				for _, sub := range g.Groups() {
					walk(sub)
				}
			}
			walk(tr.Root())
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("groups %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGroupAtNames(t *testing.T) {
	tr := New()
	b := tr.GroupAt("::a::b")
	if b.Name != "b" || b.Parent.Name != "a" || b.Parent.Parent != tr.Root() {
		t.Fatalf("b %q under %q", b.Name, b.Parent.Name)
	}
	if a := tr.GroupAt("a"); a.Name != "a" || a.Path != "a" || a.Parent != tr.Root() {
		t.Fatalf("a %q %q", a.Name, a.Path)
	}
}

func TestClone(t *testing.T) {
	tr := New()
	tr.Root().Detached("setup") // unlisted: not copied
	g, _ := tr.Root().Child("g")
	c, _ := g.Check("ok")
	c.Add(3, 1)
	root, _ := tr.Root().Check("r")
	root.Record(false)
	cp := tr.Clone()
	c.Record(true) // counted after the copy: not in it
	tr.Root().Child("later")
	want := fmt.Sprintf("\"\" %s\n\"::r\" %s 0/1\n\"::g\" %s\n\"::g::ok\" %s 3/1\n", RootID, ID("::r"), ID("::g"), ID("::g::ok"))
	if got := dump(cp.Root()); got != want {
		t.Fatalf("clone\n%swant\n%s", got, want)
	}
	if cp.Root().Groups()[0] == g {
		t.Fatal("clone shares nodes with the tree")
	}
}

func TestUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", `{}`, fmt.Sprintf("\"\" %s\n", RootID)},
		{"ids made from names", `{"name":"","path":"x","id":"y","groups":[{"name":"g","path":"p","id":"i",` +
			`"checks":[{"name":"ok","path":"q","id":"j","passes":2,"fails":1}]}]}`,
			fmt.Sprintf("\"\" %s\n\"::g\" %s\n\"::g::ok\" %s 2/1\n", RootID, ID("::g"), ID("::g::ok"))},
		{"two of a name kept apart", `{"checks":[{"name":"a","passes":1},{"name":"a","fails":2}]}`,
			fmt.Sprintf("\"\" %s\n\"::a\" %s 1/0\n\"::a\" %s 0/2\n", RootID, ID("::a"), ID("::a"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr Tree
			if err := tr.UnmarshalJSON([]byte(tc.in)); err != nil {
				t.Fatal(err)
			}
			if got := dump(tr.Root()); got != tc.want {
				t.Fatalf("got\n%swant\n%s", got, tc.want)
			}
		})
	}
	var tr Tree
	if err := tr.UnmarshalJSON([]byte(`{"checks":[{"name":"a","passes":1.5}]}`)); err == nil {
		t.Fatal("a fractional count was accepted")
	}
}
