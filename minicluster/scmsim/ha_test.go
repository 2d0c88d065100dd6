package scmsim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// A paused leader loses the leadership to the next running node, as a real group elects a new
// leader once its leader stops answering; a paused follower changes nothing; Resume gives
// nothing back.
func TestHAPauseMovesLeadership(t *testing.T) {
	tests := []struct {
		name   string
		leader int
		pause  []int
		want   int
	}{
		{"leader paused", 0, []int{0}, 1},
		{"follower paused", 0, []int{2}, 0},
		{"last node leads, paused", 2, []int{2}, 0},
		{"next one paused too", 0, []int{1, 0}, 2},
		{"all paused", 0, []int{1, 2, 0}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHA(3, Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if err := h.SetLeader(tt.leader); err != nil {
				t.Fatal(err)
			}
			for _, i := range tt.pause {
				if err := h.Pause(i); err != nil {
					t.Fatal(err)
				}
			}
			if got := h.Leader(); got != tt.want {
				t.Errorf("leader %d, want %d", got, tt.want)
			}
			for _, i := range tt.pause {
				if !h.Node(i).Paused() {
					t.Errorf("node %d not paused", i)
				}
				h.Node(i).Resume()
			}
			if got := h.Leader(); got != tt.want {
				t.Errorf("leader %d after Resume, want %d", got, tt.want)
			}
		})
	}
	h, err := NewHA(2, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Pause(2); err == nil {
		t.Error("Pause(2) of 2 nodes accepted")
	}
}

// A paused SCM stays paused across a restart, as Stop and Restart model a crash, not a SIGCONT.
func TestPauseLastsAcrossRestart(t *testing.T) {
	s := startSCM(t, Config{})
	s.Pause()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	c, err := hadooprpc.NewClient(s.Addr(), hadooprpc.Options{User: "hadoop"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := &scmpb.ScmContainerLocationRequest{CmdType: scmpb.Type_ListPipelines.Enum(), ListPipelineRequest: &scmpb.ListPipelineRequestProto{}}
	err = c.CallWithin(context.Background(), 100*time.Millisecond, Protocol, "submitRequest", req, new(scmpb.ScmContainerLocationResponse))
	var se *hadooprpc.SilenceError
	if !s.Paused() || !errors.As(err, &se) {
		t.Errorf("after a restart: paused %v, call %v; want still paused and silent", s.Paused(), err)
	}
	s.Resume()
	if err := c.Call(context.Background(), Protocol, "submitRequest", req, new(scmpb.ScmContainerLocationResponse)); err != nil {
		t.Errorf("after Resume: %v", err)
	}
}
