package realozone

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// HAServiceID is the SCM service id of an HA cluster (as in Ozone's compose files).
const HAServiceID = "scmservice"

// SCMNode is one SCM process.
type SCMNode struct {
	// ID is the node id: scm1, scm2, ... in an HA service; "scm" for a single SCM.
	ID string
	// Client is its container-location address, host:port: what dnecho and Java freon call.
	Client string
	ports  scmPorts
}

func (c *Cluster) ha() bool { return len(c.SCMs) > 1 }

// scmNodes picks the ports of every SCM.
func (c *Cluster) scmNodes(pp *portPicker) ([]*SCMNode, error) {
	n := max(c.opts.SCMs, 1)
	var nodes []*SCMNode
	for i := 1; i <= n; i++ {
		p, err := pp.scm()
		if err != nil {
			return nil, err
		}
		id := "scm"
		if n > 1 {
			id = fmt.Sprintf("scm%d", i)
		}
		nodes = append(nodes, &SCMNode{ID: id, Client: fmt.Sprintf("%s:%d", c.host, p.client), ports: p})
	}
	return nodes, nil
}

// scmAddresses are the keys by which every process finds the SCMs.
func (c *Cluster) scmAddresses() []property {
	if !c.ha() {
		return c.singleSCM()
	}
	return append(c.serviceKeys(c.SCMs), property{"ozone.scm.primordial.node.id", c.SCMs[0].ID})
}

// serviceKeys describe an HA service of the given nodes, in that order. ozone.scm.names and
// ozone.scm.client.address are left out: with them set, Ozone's processes would not use the
// service (docs/real-ozone-ha.md). The per-node port keys are the ones Ozone 2.2.0 reads without
// a deprecation warning.
func (c *Cluster) serviceKeys(nodes []*SCMNode) []property {
	var ids []string
	for _, s := range nodes {
		ids = append(ids, s.ID)
	}
	props := []property{
		{"ozone.scm.service.ids", HAServiceID},
		{"ozone.scm.nodes." + HAServiceID, strings.Join(ids, ",")},
	}
	for _, s := range nodes {
		p, sfx := s.ports, "."+HAServiceID+"."+s.ID
		props = append(props,
			property{"ozone.scm.address" + sfx, c.host},
			property{"ozone.scm.client.port" + sfx, fmt.Sprint(p.client)},
			property{"ozone.scm.block.client.port" + sfx, fmt.Sprint(p.block)},
			property{"ozone.scm.datanode.port" + sfx, fmt.Sprint(p.datanode)},
			property{"ozone.scm.security.service.port" + sfx, fmt.Sprint(p.security)},
			property{"ozone.scm.ratis.port" + sfx, fmt.Sprint(p.ratis)},
			property{"ozone.scm.grpc.port" + sfx, fmt.Sprint(p.grpc)},
			property{"ozone.scm.http-address" + sfx, fmt.Sprintf("%s:%d", c.host, p.http)},
			property{"ozone.scm.https-address" + sfx, fmt.Sprintf("%s:%d", c.host, p.https)},
		)
	}
	return props
}

// scmProps are what differ per SCM: its directories and, in an HA service, its node id (without
// it every address of the service is local and the SCM refuses to start).
func (c *Cluster) scmProps(s *SCMNode) []property {
	props := []property{{"ozone.metadata.dirs", filepath.Join(c.Dir, s.ID, "meta")}}
	if c.ha() {
		props = append(props, property{"ozone.scm.node.id", s.ID})
	}
	return props
}

// bootSCM initialises and starts one SCM: the first with --init, the others of an HA service with
// --bootstrap, which asks the running ones for the cluster id; each joins the Raft group as it
// starts, so they are started one at a time.
func (c *Cluster) bootSCM(ctx context.Context, s *SCMNode, first bool) error {
	verb := "--init"
	if !first {
		verb = "--bootstrap"
	}
	c.step(fmt.Sprintf("%s %s", s.ID, verb))
	if out, err := c.runOnce(ctx, s.ID+"-init", s.ID, scmMain, verb); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", s.ID, verb, err, tail(out, 20))
	}
	c.step(fmt.Sprintf("starting %s on %s", s.ID, s.Client))
	if err := c.startDaemon(s.ID, s.ID, scmMain); err != nil {
		return err
	}
	if err := c.waitPort(ctx, s.ID, s.ports.client); err != nil {
		return err
	}
	if c.opts.Secure != nil {
		// OM and DataNodes get their certificates from SCM's security service at start; a
		// DataNode that finds it closed gives up after about 70 s and exits.
		return c.waitPort(ctx, s.ID, s.ports.security)
	}
	return nil
}

// WriteClientConf writes a client conf dir (beside ClientConf) whose SCM service lists the SCMs
// in the order given by their ids, e.g. a follower first; it returns the dir.
func (c *Cluster) WriteClientConf(name string, order ...string) (string, error) {
	byID := map[string]*SCMNode{}
	for _, s := range c.SCMs {
		byID[s.ID] = s
	}
	var nodes []*SCMNode
	for _, id := range order {
		s := byID[id]
		if s == nil {
			return "", fmt.Errorf("no SCM %q in this cluster", id)
		}
		nodes = append(nodes, s)
	}
	if !c.ha() {
		return "", fmt.Errorf("WriteClientConf: the cluster has one SCM")
	}
	props := append(c.sharedWith(c.serviceKeys(nodes)), property{"ozone.metadata.dirs", filepath.Join(c.Dir, "client", "meta")})
	dir := c.confDir(name)
	return dir, writeConf(dir, props)
}

// rolesRE matches a line of `ozone admin scm roles`: host:ratisPort:ROLE:uuid:address, e.g.
// "localhost:25059:LEADER:d54294bd-…:127.0.0.1" (seen on 2.2.0).
var rolesRE = regexp.MustCompile(`(?m)^\S+?:(\d+):(LEADER|FOLLOWER|CANDIDATE)\b`)

// SCMRoles asks SCM for each node's Raft role (`ozone admin scm roles`) and returns the leader
// and the followers, in node order. It needs every SCM to answer: ask before pausing one.
func (c *Cluster) SCMRoles(ctx context.Context) (leader *SCMNode, followers []*SCMNode, err error) {
	out, err := c.Admin(ctx, "scm", "roles")
	if err != nil {
		return nil, nil, fmt.Errorf("scm roles: %w\n%s", err, tail(out, 10))
	}
	roles := map[string]string{}
	for _, m := range rolesRE.FindAllStringSubmatch(out, -1) {
		roles[m[1]] = m[2]
	}
	for _, s := range c.SCMs {
		switch roles[fmt.Sprint(s.ports.ratis)] {
		case "LEADER":
			leader = s
		case "FOLLOWER":
			followers = append(followers, s)
		}
	}
	if leader == nil || len(followers) != len(c.SCMs)-1 {
		return nil, nil, fmt.Errorf("scm roles: want one leader and %d followers:\n%s", len(c.SCMs)-1, tail(out, 10))
	}
	return leader, followers, nil
}

// PauseSCM stops SCM id with SIGSTOP: the kernel still completes TCP handshakes on its ports and
// nothing answers. Keep pauses under a minute: a longer one makes the SCM shut itself down when
// resumed (docs/real-ozone-ha.md).
func (c *Cluster) PauseSCM(id string) error { return c.signal(id, syscall.SIGSTOP) }

// ResumeSCM continues a paused SCM.
func (c *Cluster) ResumeSCM(id string) error { return c.signal(id, syscall.SIGCONT) }
