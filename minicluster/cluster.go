// Package minicluster assembles an emulated Ozone cluster on 127.0.0.1 — an SCM (or an SCM HA group)
// from scmsim and DataNodes from dnsim — wired together the way a real cluster is: the SCM lists a
// pipeline whose members are the emulated DataNodes' real addresses, and containers live on it.
// `dnecho cluster`, `make demo`, the tests and the benchmarks all run against it.
package minicluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/omsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// Defaults of Options.
const (
	DefaultDataNodes = 3
	// HAServiceID is the SCM service id written for an HA cluster (as in Ozone's compose files).
	HAServiceID = "scmservice"
	// ClusterFile is the machine-readable description WriteConf puts next to ozone-site.xml.
	ClusterFile = "cluster.json"
	// CAFile holds the DataNodes' CA certificates when TLS is on.
	CAFile = "ca.pem"
)

// DefaultContainers are the open containers of a default cluster.
var DefaultContainers = []int64{1, 2, 3}

// Options configures a cluster. The zero value is the default cluster: one SCM, three DataNodes,
// one 3-replica pipeline led by the first DataNode, open containers 1–3, no tokens, no TLS.
type Options struct {
	// DataNodes is the number of DataNodes (all members of the one pipeline); default 3.
	DataNodes int
	// Containers are the open container ids on the pipeline; default 1, 2, 3.
	Containers []int64
	// SCMs is the number of SCM nodes: 1 (default) or more for SCM HA, where node 0 leads.
	SCMs int
	// Tokens turns on container tokens in SCM and token verification on the DataNodes.
	Tokens bool
	// TLS serves the DataNodes' gRPC port with TLS (certificates from self-signed CAs).
	TLS bool
	// Admins, when non-nil, turns SCM's admin check on.
	Admins []string
	// SCMAddr is the (single) SCM's listen address; "" picks a free 127.0.0.1 port.
	SCMAddr string
	// Faults are injected into every DataNode from the start.
	Faults dnsim.Faults
	// Security, when set, Kerberizes the SCM and the OM.
	Security *Security
	// TLSNameOnly gives the DataNodes certificates without their IP address, which Ozone's client
	// (checking the IP) refuses unless hdds.grpc.tls.test.cert is true.
	TLSNameOnly bool

	// The pipeline is an emulated Raft group (minicluster/raftsim) served on each DataNode's
	// RATIS port. Leader is the member index that leads first (SCM lists it as the leader).
	Leader int
	// HideLeader makes SCM list the pipeline without a leader, so clients start at the first
	// member (as Java does when no member matches the listed leader).
	HideLeader bool
	// ReplicationDelay is how long after the leader logs a write each follower holds it.
	ReplicationDelay time.Duration
	// ReadyDelay keeps a new leader answering LeaderNotReady this long after a move.
	ReadyDelay time.Duration
	// HandlerCount is hdds.datanode.handler.count of every DataNode (dnsim.DefaultHandlerCount
	// when 0): how many Echoes of the Ratis path one DataNode runs at once.
	HandlerCount int
}

// Cluster is a running emulated cluster.
type Cluster struct {
	opts       Options
	scm        *scmsim.SCM // non-HA
	ha         *scmsim.HA  // HA
	dataNodes  []*dnsim.DataNode
	pipelineID string
	om         *omsim.Service // with TLS or Security
	group      *raftsim.Group
}

// Limits of Options. MaxDataNodes bounds the ports and goroutines one process opens (two
// listeners per DataNode); 128 leaves room for `make bench`'s 100-DataNode scaling row.
const (
	MaxDataNodes = 128
	MaxSCMs      = 9
)

// CheckContainers rejects container ids that are not positive or given twice.
func CheckContainers(ids []int64) error {
	seen := map[int64]bool{}
	for _, id := range ids {
		switch {
		case id <= 0:
			return fmt.Errorf("container id %d: ids are positive", id)
		case seen[id]:
			return fmt.Errorf("container id %d is given twice", id)
		}
		seen[id] = true
	}
	return nil
}

// Start starts a cluster. Close it when done. On an error, whatever had started is stopped.
func Start(o Options) (*Cluster, error) {
	c := &Cluster{}
	if err := c.start(o); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(o Options) error {
	if o.DataNodes == 0 {
		o.DataNodes = DefaultDataNodes
	}
	if o.DataNodes < 0 || o.DataNodes > MaxDataNodes {
		return fmt.Errorf("minicluster: %d DataNodes: use 1 to %d", o.DataNodes, MaxDataNodes)
	}
	if o.Containers == nil {
		o.Containers = DefaultContainers
	}
	if err := CheckContainers(o.Containers); err != nil {
		return fmt.Errorf("minicluster: %w", err)
	}
	if o.SCMs == 0 {
		o.SCMs = 1
	}
	if o.SCMs < 0 || o.SCMs > MaxSCMs {
		return fmt.Errorf("minicluster: %d SCMs: use 1 (no HA) to %d", o.SCMs, MaxSCMs)
	}
	if o.Leader < 0 || o.Leader >= o.DataNodes {
		return fmt.Errorf("minicluster: leader %d: use a DataNode index from 0 to %d", o.Leader, o.DataNodes-1)
	}
	if o.ReplicationDelay < 0 || o.ReadyDelay < 0 || o.HandlerCount < 0 {
		return fmt.Errorf("minicluster: ReplicationDelay, ReadyDelay and HandlerCount must be >= 0")
	}
	c.opts = o
	if err := c.startDataNodes(); err != nil {
		return err
	}
	c.pipelineID = scmsim.NewUUID()
	if err := c.startGroup(); err != nil {
		return err
	}
	pipeline, err := c.pipeline()
	if err != nil {
		return err
	}
	cfg := scmsim.Config{Admins: o.Admins, TokensEnabled: o.Tokens}
	if o.Security != nil {
		if cfg.RPC, err = o.Security.rpc(o.Security.SCMPrincipal, o.Security.SCMKeytab, "hdds.scm.kerberos"); err != nil {
			return err
		}
	}
	if o.TLS || o.Security != nil {
		if err := c.startOM(o); err != nil {
			return err
		}
	}
	type state interface {
		AddPipeline(*hddspb.Pipeline) error
		AddContainer(scmsim.Container) error
	}
	var st state
	if o.SCMs > 1 {
		if c.ha, err = scmsim.NewHA(o.SCMs, cfg); err != nil {
			return err
		}
		st = c.ha
	} else {
		if c.scm, err = scmsim.New(cfg); err != nil {
			return err
		}
		if err := c.scm.Start(o.SCMAddr); err != nil {
			return err
		}
		st = c.scm
	}
	if err := st.AddPipeline(pipeline); err != nil {
		return err
	}
	factor := hddspb.ReplicationFactor_THREE
	if o.DataNodes == 1 {
		factor = hddspb.ReplicationFactor_ONE
	}
	for _, id := range o.Containers {
		if err := st.AddContainer(scmsim.Container{ID: uint64(id), PipelineID: c.pipelineID, ReplicationFactor: factor}); err != nil {
			return err
		}
	}
	return nil
}

// startDataNodes starts the DataNodes, each holding every container.
func (c *Cluster) startDataNodes() error {
	o := c.opts
	held := make(map[int64]int32, len(o.Containers))
	for _, id := range o.Containers {
		held[id] = 0
	}
	for i := 0; i < o.DataNodes; i++ {
		dn, err := dnsim.New(dnsim.Options{
			HostName: fmt.Sprintf("dn%d.localhost", i+1), Containers: held,
			TokenVerification: o.Tokens, TLS: o.TLS, TLSNameOnly: o.TLSNameOnly, Faults: o.Faults, HandlerCount: o.HandlerCount,
		})
		if err != nil {
			return err
		}
		c.dataNodes = append(c.dataNodes, dn)
		if err := dn.Start("127.0.0.1:0"); err != nil {
			return err
		}
	}
	return nil
}

// startGroup makes the pipeline a Raft group served by its DataNodes.
func (c *Cluster) startGroup() error {
	replicas := make([]raftsim.Replica, len(c.dataNodes))
	delays := make([]time.Duration, len(c.dataNodes))
	for i, dn := range c.dataNodes {
		replicas[i] = dn
		if i != c.opts.Leader {
			delays[i] = c.opts.ReplicationDelay
		}
	}
	g, err := raftsim.NewGroup(c.pipelineID, replicas, raftsim.GroupOptions{Leader: c.opts.Leader, Delays: delays, ReadyDelay: c.opts.ReadyDelay})
	if err != nil {
		return err
	}
	c.group = g
	for _, dn := range c.dataNodes {
		if err := dn.JoinGroup(g); err != nil {
			return err
		}
	}
	return nil
}

// pipeline is the pipeline as SCM lists it: the DataNodes' current addresses and the leader
// SCM knows of (leaderID and leaderDatanodeID, as SCM fills them from pipeline reports).
func (c *Cluster) pipeline() (*hddspb.Pipeline, error) {
	members := make([]*hddspb.DatanodeDetailsProto, 0, len(c.dataNodes))
	for _, dn := range c.dataNodes {
		members = append(members, dn.Details())
	}
	p, err := scmsim.Pipeline(c.pipelineID, hddspb.PipelineState_PIPELINE_OPEN, members...)
	if err != nil || c.opts.HideLeader {
		return p, err
	}
	leader := members[c.opts.Leader]
	p.LeaderID = proto.String(hddspb.DatanodeUUID(leader))
	p.LeaderDatanodeID = &hddspb.DatanodeIDProto{Uuid: proto.Clone(leader.GetId().GetUuid()).(*hddspb.UUID)}
	return p, nil
}

// Group returns the pipeline's Raft group: move its leader, set replication delays, read its
// counters.
func (c *Cluster) Group() *raftsim.Group { return c.group }

// TransferLeadership moves the pipeline's leadership to DataNode i, mid-run if calls are in
// flight. SCM keeps listing the first leader, as it does until DataNodes report the change:
// clients that start later are redirected by NotLeader.
func (c *Cluster) TransferLeadership(i int) error { return c.group.TransferLeadership(i) }

// SCMAddrs returns the SCM client address(es), in node order.
func (c *Cluster) SCMAddrs() []string {
	if c.ha != nil {
		return c.ha.Addrs()
	}
	return []string{c.scm.Addr()}
}

// SCM returns the single SCM (nil for an HA cluster).
func (c *Cluster) SCM() *scmsim.SCM { return c.scm }

// HA returns the SCM HA group (nil without HA).
func (c *Cluster) HA() *scmsim.HA { return c.ha }

// HangSCM makes SCM i (0-based, in the order of SCMAddrs) hang as a SIGSTOPped SCM: it accepts
// connections and answers nothing (scmsim.SCM.Pause; in an HA group the leadership moves off it,
// scmsim.HA.Pause).
func (c *Cluster) HangSCM(i int) error {
	n := len(c.SCMAddrs())
	switch {
	case i < 0 || i >= n:
		return fmt.Errorf("minicluster: SCM %d: have %d (0-based)", i, n)
	case c.ha != nil:
		return c.ha.Pause(i)
	}
	c.scm.Pause()
	return nil
}

// DataNodes returns the DataNodes in pipeline member order.
func (c *Cluster) DataNodes() []*dnsim.DataNode { return c.dataNodes }

// PipelineID returns the id of the pipeline every container is on.
func (c *Cluster) PipelineID() string { return c.pipelineID }

// Containers returns the container ids.
func (c *Cluster) Containers() []int64 { return c.opts.Containers }

// CAPEM returns the concatenated CA certificates of the DataNodes (nil without TLS).
func (c *Cluster) CAPEM() []byte {
	var out []byte
	for _, dn := range c.dataNodes {
		out = append(out, dn.CACertPEM()...)
	}
	return out
}

// Config returns the ozone-site.xml properties a client needs to reach this cluster.
func (c *Cluster) Config() map[string]string {
	p := map[string]string{}
	if c.ha != nil {
		var ids []string
		for i, addr := range c.ha.Addrs() {
			id := "scm" + strconv.Itoa(i+1)
			ids = append(ids, id)
			host, port := splitHostPort(addr)
			p[config.KeySCMAddressPrefix+HAServiceID+"."+id] = host
			p[config.KeySCMClientPortPrefix+HAServiceID+"."+id] = port
		}
		p[config.KeySCMServiceIDs] = HAServiceID
		p[config.KeySCMNodesPrefix+HAServiceID] = strings.Join(ids, ",")
	} else {
		host, _ := splitHostPort(c.scm.Addr())
		p[config.KeySCMNames] = host
		p[config.KeySCMClientAddress] = c.scm.Addr()
	}
	if c.opts.Tokens {
		p[config.KeyContainerTokenEnabled] = "true"
		p[config.KeyBlockTokenEnabled] = "true"
	}
	if c.opts.TLS {
		p[config.KeySecurityEnabled] = "true"
		p[config.KeyGRPCTLSEnabled] = "true"
	}
	c.securityConfig(p)
	return p
}

// OMAddrs returns the emulated Ozone Manager's address(es); nil without TLS or Security.
func (c *Cluster) OMAddrs() []string {
	if c.om == nil {
		return nil
	}
	return c.om.Addrs()
}

// Info is the machine-readable description written to cluster.json.
type Info struct {
	SCM        []string       `json:"scm"`
	DataNodes  []DataNodeInfo `json:"datanodes"`
	PipelineID string         `json:"pipeline"`
	Containers []int64        `json:"containers"`
	Leader     int            `json:"leader"` // index into DataNodes of the first leader
	Tokens     bool           `json:"tokens"`
	TLS        bool           `json:"tls"`
	CAFile     string         `json:"caFile,omitempty"`
	OM         []string       `json:"om,omitempty"`
	Kerberos   bool           `json:"kerberos,omitempty"`
}

// DataNodeInfo describes one DataNode in Info.
type DataNodeInfo struct {
	UUID      string `json:"uuid"`
	Addr      string `json:"addr"`
	RatisAddr string `json:"ratisAddr"` // the RATIS port (Ratis client service)
}

// Info describes the running cluster.
func (c *Cluster) Info() Info {
	in := Info{SCM: c.SCMAddrs(), PipelineID: c.pipelineID, Containers: c.opts.Containers, Leader: c.opts.Leader, Tokens: c.opts.Tokens, TLS: c.opts.TLS,
		OM: c.OMAddrs(), Kerberos: c.opts.Security != nil}
	for _, dn := range c.dataNodes {
		in.DataNodes = append(in.DataNodes, DataNodeInfo{UUID: dn.UUID(), Addr: dn.Addr(), RatisAddr: "127.0.0.1:" + strconv.Itoa(dn.RatisPort())})
	}
	return in
}

// WriteConf writes ozone-site.xml, ca.pem (with TLS) and, last, cluster.json into dir, creating
// it. Tools wait for cluster.json to know the cluster is up.
func (c *Cluster) WriteConf(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := config.Write(dir, c.Config()); err != nil {
		return err
	}
	info := c.Info()
	if c.opts.TLS {
		info.CAFile = filepath.Join(dir, CAFile)
		if err := os.WriteFile(info.CAFile, c.CAPEM(), 0o644); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ClusterFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ClusterFile))
}

// MoveDataNodes restarts every DataNode on a new port and publishes the pipeline's new
// addresses in SCM, as after a rolling restart of DataNodes with ephemeral ports: clients that
// keep the old addresses fail with UNAVAILABLE until they look the container up again.
func (c *Cluster) MoveDataNodes() error {
	for _, dn := range c.dataNodes {
		if err := dn.Move(); err != nil {
			return err
		}
	}
	pipeline, err := c.pipeline()
	if err != nil {
		return err
	}
	if c.ha != nil {
		return c.ha.AddPipeline(pipeline)
	}
	return c.scm.AddPipeline(pipeline)
}

// RestartOnNewPorts restarts DataNode i on new ports without telling SCM, which keeps listing
// the old ones: a real SCM (Ozone 2.2.0) updates a registered DataNode's details only when its
// IP address or host name changes, so one restarted on the same host with new ports stays
// listed at the old ports (docs/real-ozone.md, "What the real cluster showed").
func (c *Cluster) RestartOnNewPorts(i int) error {
	if i < 0 || i >= len(c.dataNodes) {
		return fmt.Errorf("minicluster: no DataNode %d of %d", i, len(c.dataNodes))
	}
	return c.dataNodes[i].Move()
}

// CloseContainer closes a container as `ozone admin container close` does once the DataNodes
// have acted on it: SCM lists it CLOSED on its pipeline and every DataNode holds it CLOSED.
func (c *Cluster) CloseContainer(id int64) error {
	if !slices.Contains(c.opts.Containers, id) {
		return fmt.Errorf("minicluster: container %d is not one of %v", id, c.opts.Containers)
	}
	factor := hddspb.ReplicationFactor_THREE
	if len(c.dataNodes) == 1 {
		factor = hddspb.ReplicationFactor_ONE
	}
	ctr := scmsim.Container{ID: uint64(id), State: hddspb.LifeCycleState_CLOSED, PipelineID: c.pipelineID, ReplicationFactor: factor}
	var err error
	if c.ha != nil {
		err = c.ha.AddContainer(ctr)
	} else {
		err = c.scm.AddContainer(ctr)
	}
	if err != nil {
		return err
	}
	for _, d := range c.dataNodes {
		d.SetContainerState(id, hddspb.LifeCycleState_CLOSED)
	}
	return nil
}

// Close stops every server.
func (c *Cluster) Close() error {
	var errs []error
	for _, dn := range c.dataNodes {
		dn.Stop()
	}
	if c.group != nil {
		c.group.Close()
	}
	if c.scm != nil {
		errs = append(errs, c.scm.Close())
	}
	if c.ha != nil {
		errs = append(errs, c.ha.Close())
	}
	if c.om != nil {
		errs = append(errs, c.om.Close())
	}
	return errors.Join(errs...)
}

func splitHostPort(addr string) (string, string) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return addr, ""
	}
	return addr[:i], addr[i+1:]
}
