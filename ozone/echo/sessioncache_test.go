package echo

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

func TestGroupSharesSessionsAndLookups(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	g := NewSessionCache(nil)
	defer g.Close()
	spec := Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1}
	before := c.SCM().Requests()
	var wg sync.WaitGroup
	sessions := make([]*Session, 20)
	errs := make([]error, 20)
	for i := range sessions {
		wg.Go(func() {
			s := spec
			if i%2 == 1 {
				s.Stream = StreamReuse // another session, the same lookup
			}
			sessions[i], errs[i] = g.Open(context.Background(), s)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
	}
	if n := c.SCM().Requests() - before; n != 2 {
		t.Errorf("%d SCM requests, want 2 (one freon lookup)", n)
	}
	for i := 2; i < len(sessions); i++ {
		if sessions[i] != sessions[i%2] {
			t.Fatalf("session %d is not shared", i)
		}
	}
	if sessions[0] == sessions[1] {
		t.Error("different stream modes share a session")
	}
	if r := sessions[1].Echo(context.Background(), 3); !r.OK() {
		t.Errorf("echo: %+v", r)
	}
}

func TestGroupKeepsFailuresAndEndsWaits(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	g := NewSessionCache(nil)
	spec := Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 77}
	before := c.SCM().Requests()
	_, err1 := g.Open(context.Background(), spec)
	_, err2 := g.Open(context.Background(), spec)
	if err1 == nil || err2 == nil || c.SCM().Requests()-before != 1 {
		t.Errorf("unknown container: %v / %v after %d requests, want one failed lookup kept", err1, err2, c.SCM().Requests()-before)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Open(ctx, Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 1}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("a cancelled wait: %v", err)
	}
	g.Close()
	if _, err := g.Open(context.Background(), Spec{Cluster: Cluster{SCM: c.SCMAddrs()}, ContainerID: 2}); !errors.Is(err, ErrCacheClosed) {
		t.Errorf("open after Close: %v", err)
	}
}
