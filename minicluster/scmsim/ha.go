package scmsim

import (
	"errors"
	"fmt"

	"github.com/dnecho/dnecho/proto/hddspb"
)

// HA is a group of SCMs sharing containers, pipelines and the secret key,
// one of which leads. Followers answer every request with
// ServerNotLeaderException, naming the leader's address when known
// (docs/ozone-scm.md#leader-check-on-the-server).
type HA struct {
	nodes []*SCM
	st    *state
}

// NewHA starts n SCMs on free 127.0.0.1 ports; node 0 leads.
func NewHA(n int, cfg Config) (*HA, error) {
	if n < 1 {
		return nil, fmt.Errorf("scmsim: NewHA: n = %d: need at least one node", n)
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := &HA{st: newState(c.SecretKey)}
	for i := range n {
		h.nodes = append(h.nodes, &SCM{cfg: c, st: h.st, index: i, peers: h})
	}
	for _, node := range h.nodes {
		if err := node.Start(""); err != nil {
			h.Close()
			return nil, err
		}
	}
	return h, nil
}

// Node returns node i.
func (h *HA) Node(i int) *SCM { return h.nodes[i] }

// Addrs returns every node's address, in node order.
func (h *HA) Addrs() []string {
	out := make([]string, len(h.nodes))
	for i, n := range h.nodes {
		out[i] = n.Addr()
	}
	return out
}

// SetLeader makes node i the leader; -1 leaves the group without one.
func (h *HA) SetLeader(i int) error {
	if i < -1 || i >= len(h.nodes) {
		return fmt.Errorf("scmsim: SetLeader(%d): have %d nodes", i, len(h.nodes))
	}
	h.st.mu.Lock()
	h.st.leader = i
	h.st.mu.Unlock()
	return nil
}

// Pause hangs node i as a SIGSTOPped SCM (SCM.Pause). A paused leader loses the leadership to
// the next running node, as the others of a real group elect a new leader once its heartbeats
// stop (within a few seconds there, at once here); with every node paused the group is left
// without one. Resume does not hand the leadership back, as a real SCM resumed after an
// election comes back a follower.
func (h *HA) Pause(i int) error {
	if i < 0 || i >= len(h.nodes) {
		return fmt.Errorf("scmsim: Pause(%d): have %d nodes", i, len(h.nodes))
	}
	h.nodes[i].Pause()
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if h.st.leader != i {
		return nil
	}
	h.st.leader = -1
	for k := 1; k < len(h.nodes); k++ {
		if n := (i + k) % len(h.nodes); !h.nodes[n].Paused() {
			h.st.leader = n
			break
		}
	}
	return nil
}

// Leader is the index of the leading node, -1 for none.
func (h *HA) Leader() int {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	return h.st.leader
}

// SetLeaderKnown chooses whether followers name the leader in their hint
// or say "Could not determine the leader node."
func (h *HA) SetLeaderKnown(known bool) {
	h.st.mu.Lock()
	h.st.leaderKnown = known
	h.st.mu.Unlock()
}

// AddContainer adds a container to every node.
func (h *HA) AddContainer(c Container) error { return h.st.addContainer(c) }

// AddPipeline adds a pipeline to every node.
func (h *HA) AddPipeline(p *hddspb.Pipeline) error { return h.st.addPipeline(p) }

// Close stops every node.
func (h *HA) Close() error {
	var errs []error
	for _, n := range h.nodes {
		errs = append(errs, n.Close())
	}
	return errors.Join(errs...)
}

// peerAddr returns the address of node i, "" if there is none.
func (s *SCM) peerAddr(i int) string {
	if s.peers == nil || i < 0 || i >= len(s.peers.nodes) {
		return ""
	}
	return s.peers.nodes[i].Addr()
}
