package groups

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
)

func TestIDs(t *testing.T) {
	if got := ID(""); got != RootID {
		t.Fatalf("ID(\"\") = %s, want %s", got, RootID)
	}
	tr := NewTree()
	g, err := tr.Root().Child("outer")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := g.Child("inner")
	if in.Path != "::outer::inner" || in.ID != ID("::outer::inner") {
		t.Fatalf("inner = %q %q", in.Path, in.ID)
	}
	c, _ := in.Check("ok")
	if c.Path != "::outer::inner::ok" || c.ID != ID("::outer::inner::ok") {
		t.Fatalf("check = %q %q", c.Path, c.ID)
	}
	if _, err := g.Child("a::b"); !errors.Is(err, ErrNameSeparator) {
		t.Fatalf("Child(a::b) err = %v", err)
	}
	if _, err := g.Check("a::b"); !errors.Is(err, ErrNameSeparator) {
		t.Fatalf("Check(a::b) err = %v", err)
	}
}

func TestDetachedGroupShowsOnlyWhenUsed(t *testing.T) {
	tr := NewTree()
	setup := tr.Root().Detached("setup")
	if setup.Path != "::setup" {
		t.Fatalf("path %q", setup.Path)
	}
	if n := len(tr.Summary().Groups); n != 0 {
		t.Fatalf("unused detached group listed: %d groups", n)
	}
	c, _ := setup.Check("x")
	c.Record(true)
	s := tr.Summary()
	if len(s.Groups) != 1 || s.Groups[0].Name != "setup" || s.Groups[0].Checks[0].Passes != 1 {
		t.Fatalf("summary %+v", s)
	}
	// Asking again returns the same node and does not list it twice.
	if tr.Root().Detached("setup") != setup {
		t.Fatal("Detached returned a new node")
	}
	setup.Check("y")
	if len(tr.Summary().Groups) != 1 {
		t.Fatal("detached group listed twice")
	}
}

func TestConcurrentCounts(t *testing.T) {
	tr := NewTree()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				c, _ := tr.Root().Check("c")
				c.Record(j%2 == 0)
			}
		}()
	}
	wg.Wait()
	b, _ := json.Marshal(tr.Summary())
	want := `{"name":"","path":"","id":"d41d8cd98f00b204e9800998ecf8427e","groups":[],"checks":[{"name":"c","path":"::c","id":"` +
		ID("::c") + `","passes":4000,"fails":4000}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
