package scm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

func TestHAFailover(t *testing.T) {
	tests := []struct {
		name        string
		leader      int
		leaderKnown bool
		want        []int64 // requests per node for one GetContainer
	}{
		{"start on leader", 0, true, []int64{1, 0, 0}},
		{"follower hints the leader", 2, true, []int64{1, 0, 1}},
		{"leader unknown: round robin", 2, false, []int64{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := startHA(t, 3)
			must(t, h.SetLeader(tt.leader))
			h.SetLeaderKnown(tt.leaderKnown)
			c := newClient(t, fastOptions("hadoop", h.Addrs()...))
			info, err := c.GetContainer(testCtx(t), 1)
			if err != nil || info.GetContainerID() != 1 {
				t.Fatalf("GetContainer: %v", err)
			}
			for i, w := range tt.want {
				if got := h.Node(i).Requests(); got != w {
					t.Errorf("node %d served %d requests, want %d", i, got, w)
				}
			}
		})
	}
}

func TestHALeaderMovesMidRun(t *testing.T) {
	h := startHA(t, 3)
	c := newClient(t, fastOptions("hadoop", h.Addrs()...))
	ctx := testCtx(t)
	if _, err := c.ListPipelines(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, h.SetLeader(1))
	if _, err := c.ListPipelines(ctx); err != nil {
		t.Fatalf("after leader change: %v", err)
	}
	// The client now sticks to the new leader.
	before := h.Node(0).Requests()
	if _, err := c.ListPipelines(ctx); err != nil {
		t.Fatal(err)
	}
	if h.Node(0).Requests() != before || h.Node(1).Requests() != 2 {
		t.Errorf("requests %d/%d/%d: client did not stick to the new leader",
			h.Node(0).Requests(), h.Node(1).Requests(), h.Node(2).Requests())
	}
}

func TestHAStoppedNodes(t *testing.T) {
	h := startHA(t, 3)
	must(t, h.SetLeader(1))
	must(t, h.Node(0).Stop())
	c := newClient(t, fastOptions("hadoop", h.Addrs()...))
	ctx := testCtx(t)
	if _, err := c.GetContainer(ctx, 1); err != nil {
		t.Fatalf("with node 0 down: %v", err)
	}
	// Leader crashes; node 0 comes back and takes over.
	must(t, h.Node(1).Stop())
	must(t, h.Node(0).Restart())
	must(t, h.SetLeader(0))
	if _, err := c.GetContainer(ctx, 1); err != nil {
		t.Fatalf("after leader crash: %v", err)
	}
	if h.Node(0).Requests() == 0 {
		t.Error("restarted node 0 never served")
	}
}

func TestUnreachable(t *testing.T) {
	h := startHA(t, 2)
	ctx := testCtx(t)

	t.Run("all down", func(t *testing.T) {
		addrs := h.Addrs()
		for i := range 2 {
			must(t, h.Node(i).Stop())
		}
		defer func() {
			for i := range 2 {
				must(t, h.Node(i).Restart())
			}
		}()
		start := time.Now()
		_, err := newClient(t, fastOptions("hadoop", addrs...)).GetContainer(ctx, 1)
		var ue *UnreachableError
		if !errors.As(err, &ue) || !errors.Is(err, ErrRetriesExhausted) || ue.Attempts != 11 || len(ue.Nodes) != 2 {
			t.Fatalf("err = %v", err)
		}
		for _, n := range ue.Nodes {
			var ce *hadooprpc.ConnError
			if !errors.As(n.Err, &ce) || !strings.Contains(err.Error(), n.Addr) {
				t.Errorf("node %s cause = %v", n.Addr, n.Err)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("no leader", func(t *testing.T) {
		must(t, h.SetLeader(-1))
		defer h.SetLeader(0)
		_, err := newClient(t, fastOptions("hadoop", h.Addrs()...)).GetContainer(ctx, 1)
		var ue *UnreachableError
		if !errors.As(err, &ue) || hadooprpc.RemoteClass(ue.Nodes[0].Err) != "ServerNotLeaderException" {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("wrong port, default retry policy, bounded by ctx", func(t *testing.T) {
		o := fastOptions("hadoop", closedPort(t))
		o.RetryInterval, o.MaxRetries = 0, 0 // defaults: 2 s apart, 300 retries
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := newClient(t, o).ListPipelines(cctx)
		var ue *UnreachableError
		if !errors.As(err, &ue) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})

	t.Run("wrong port, small budget", func(t *testing.T) {
		o := fastOptions("hadoop", closedPort(t))
		o.MaxRetries = NoRetries
		_, err := newClient(t, o).ListPipelines(ctx)
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Attempts != 1 {
			t.Fatalf("err = %v", err)
		}
	})
}
