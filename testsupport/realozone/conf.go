package realozone

import (
	"fmt"
	"html"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// property is one ozone-site.xml entry.
type property struct{ key, value string }

// scmPorts and the others are the ports of each process, all on the cluster's host address.
type scmPorts struct{ client, block, datanode, security, http, https, ratis, grpc int }
type omPorts struct{ rpc, http, ratis int }
type dnPorts struct{ http, ratisIPC, ipc, ratisServer, ratisAdmin, replication, datastream, client int }

// portPicker hands out free ports below the Linux ephemeral range (32768), so an outgoing
// connection cannot take one between the probe and the JVM's bind. It keeps every port it has
// handed out listening until release, so no two of its ports are the same. Another process can
// still bind one first: Start then tries again with new ports.
type portPicker struct {
	held []net.Listener
	// inNetNS: the ports are for a fresh network namespace, where all are free.
	inNetNS bool
	seen    map[int]bool
}

func (pp *portPicker) pick(n int) ([]int, error) {
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("no %d free ports on 127.0.0.1", n)
		}
		p := 20000 + rand.IntN(12000)
		if pp.inNetNS {
			if pp.seen == nil {
				pp.seen = map[int]bool{}
			}
			if !pp.seen[p] {
				pp.seen[p] = true
				ports = append(ports, p)
			}
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		pp.held = append(pp.held, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// release closes the probes so that the JVMs can bind the ports.
func (pp *portPicker) release() {
	for _, l := range pp.held {
		l.Close()
	}
	pp.held = nil
}

func (pp *portPicker) scm() (scmPorts, error) {
	p, err := pp.pick(8)
	if err != nil {
		return scmPorts{}, err
	}
	return scmPorts{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]}, nil
}

func (pp *portPicker) om() (omPorts, error) {
	p, err := pp.pick(3)
	if err != nil {
		return omPorts{}, err
	}
	return omPorts{p[0], p[1], p[2]}, nil
}

func (pp *portPicker) dataNode() (dnPorts, error) {
	p, err := pp.pick(8)
	if err != nil {
		return dnPorts{}, err
	}
	return dnPorts{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]}, nil
}

// shared is the configuration every process reads: where SCM and OM are, and the settings that
// make a three-DataNode cluster on one small host start fast with exactly one RATIS/THREE
// pipeline (docs/real-ozone.md, "Configuration").
func (c *Cluster) shared() []property { return c.sharedWith(c.scmAddresses()) }

// sharedWith is shared with other SCM addresses (a client's own order of an HA service).
func (c *Cluster) sharedWith(scm []property) []property {
	o, h := c.om, c.host
	addr := func(p int) string { return fmt.Sprintf("%s:%d", h, p) }
	props := append(scm, []property{
		{"ozone.scm.client.bind.host", h},
		{"ozone.scm.block.client.bind.host", h},
		{"ozone.scm.datanode.bind.host", h},
		{"ozone.scm.security.service.bind.host", h},
		{"ozone.scm.http-bind-host", h},
		{"ozone.om.address", addr(o.rpc)},
		{"ozone.om.http-address", addr(o.http)},
		{"ozone.om.http-bind-host", h},
		{"ozone.om.ratis.port", fmt.Sprint(o.ratis)},
		{"ozone.om.s3.grpc.server_enabled", "false"},
		// Safe mode ends only when every DataNode is in and a RATIS/THREE pipeline is open.
		{"hdds.scm.safemode.min.datanode", fmt.Sprint(c.opts.DataNodes)},
		{"hdds.scm.wait.time.after.safemode.exit", "3s"},
		// SCM waits this long before it tells the DataNodes to close a container (150 s by
		// default, so that writers can finish); tests close containers on purpose.
		{"ozone.scm.close.container.wait.duration", "1s"},
		{"ozone.scm.datanode.pipeline.limit", "1"},
		{"ozone.scm.pipeline.creation.auto.factor.one", "false"},
		{"ozone.scm.pipeline.creation.interval", "10s"},
		// A closed pipeline still counts against the limit above until SCM's scrubber removes
		// it, 66 s after it closed (ozone.scm.pipeline.destroy.timeout), and the scrubber looks
		// every 5 minutes by default: every 5 s here, so that the replacement opens about a
		// minute after an outage closed a pipeline. The 66 s stay: a test whose container's
		// pipeline closes under load still finds that pipeline listed (at 5 s it was gone
		// before the DataNode-restarted test could look).
		{"ozone.scm.pipeline.scrub.interval", "5s"},
		// Fast start and fast failure detection.
		{"hdds.heartbeat.interval", "2s"},
		{"hdds.heartbeat.initial-interval", "500ms"},
		{"ozone.scm.heartbeat.thread.interval", "1s"},
		// A DataNode paused by a test (SIGSTOP) stays HEALTHY, its pipeline and containers
		// open, and its Raft server up: the tests mean to pause for under a minute, but on a
		// busy machine the checks made while it is paused (a JVM starting among them) took 60.3
		// s, past the stale interval (the pipeline closed) and past Ratis's close threshold
		// (raft.server.close.threshold, 60 s: the DataNode's Raft server shut itself down on
		// waking, and no new pipeline could open). DataNode keys with the hdds.ratis. prefix go
		// to Ratis without it.
		{"ozone.scm.stale.node.interval", "3m"},
		{"ozone.scm.dead.node.interval", "6m"},
		{"hdds.ratis.raft.server.close.threshold", "600s"},
		{"hdds.raft.server.rpc.first-election.timeout", "1s"},
		{"ozone.scm.ha.raft.server.rpc.first-election.timeout", "1s"},
		{"ozone.om.ratis.minimum.timeout", "1s"},
		{"hdds.scmclient.max.retry.timeout", "30s"},
		// Small disks: the defaults want more than 25 GB free per DataNode volume.
		{"ozone.scm.container.size", "1GB"},
		{"ozone.scm.datanode.ratis.volume.free-space.min", "100MB"},
		{"hdds.datanode.volume.min.free.space", "100MB"},
		{"hdds.datanode.volume.min.free.space.percent", "0"},
		{"hdds.datanode.volume.min.free.space.hard.limit.percent", "0"},
		{"hdds.container.ratis.num.write.chunk.threads.per.volume", "4"},
	}...)
	if c.opts.Secure != nil {
		props = append(props, c.opts.Secure.properties(c.Dir)...)
	}
	keys := make([]string, 0, len(c.opts.Extra))
	for k := range c.opts.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props = append(props, property{k, c.opts.Extra[k]})
	}
	return props
}

// singleSCM are the addresses of a cluster with one SCM: every SCM endpoint is ozone.scm.names
// plus the role's port key. DataNodes ignore ozone.scm.datanode.address and use ozone.scm.names
// with ozone.scm.datanode.port.
func (c *Cluster) singleSCM() []property {
	s, h := c.SCMs[0].ports, c.host
	addr := func(p int) string { return fmt.Sprintf("%s:%d", h, p) }
	return []property{
		{"ozone.scm.names", h},
		{"ozone.scm.client.port", fmt.Sprint(s.client)},
		{"ozone.scm.client.address", addr(s.client)},
		{"ozone.scm.block.client.port", fmt.Sprint(s.block)},
		{"ozone.scm.block.client.address", addr(s.block)},
		{"ozone.scm.datanode.port", fmt.Sprint(s.datanode)},
		{"ozone.scm.datanode.address", addr(s.datanode)},
		{"ozone.scm.security.service.port", fmt.Sprint(s.security)},
		{"ozone.scm.security.service.address", addr(s.security)},
		{"ozone.scm.http-address", addr(s.http)},
		{"ozone.scm.ratis.port", fmt.Sprint(s.ratis)},
		{"ozone.scm.grpc.port", fmt.Sprint(s.grpc)},
	}
}

// dataNodeProps are what differ per DataNode: its directories and ports.
func (c *Cluster) dataNodeProps(d *DataNode) []property {
	p, h := d.ports, c.host
	dir := filepath.Join(c.Dir, d.name)
	return []property{
		{"ozone.metadata.dirs", filepath.Join(dir, "meta")},
		{"hdds.datanode.dir", filepath.Join(dir, "data")},
		{"hdds.container.ratis.datanode.storage.dir", filepath.Join(dir, "ratis")},
		{"hdds.datanode.hostname", h},
		{"hdds.datanode.http-address", fmt.Sprintf("%s:%d", h, p.http)},
		{"hdds.datanode.http-bind-host", h},
		{"hdds.container.ratis.ipc.port", fmt.Sprint(p.ratisIPC)},
		{"hdds.container.ipc.port", fmt.Sprint(p.ipc)},
		{"hdds.container.ratis.server.port", fmt.Sprint(p.ratisServer)},
		{"hdds.container.ratis.admin.port", fmt.Sprint(p.ratisAdmin)},
		{"hdds.datanode.replication.port", fmt.Sprint(p.replication)},
		{"hdds.container.ratis.datastream.port", fmt.Sprint(p.datastream)},
		{"hdds.datanode.client.port", fmt.Sprint(p.client)},
		{"hdds.datanode.client.address", fmt.Sprintf("%s:%d", h, p.client)},
	}
}

// log4j is the console layout of Ozone's own distribution, on stderr.
const log4j = `log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} [%t] %p %c{2}: %m%n
log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
log4j.logger.org.apache.ratis.conf.ConfUtils=WARN
`

// writeConf writes one process's conf dir: ozone-site.xml (and core-site.xml, which a plain
// Hadoop Configuration reads, for the security keys), and log4j.properties. The Java clients were
// seen not to need core-site.xml (docs/real-ozone.md, secure mode); the daemons have never run
// without it, and Ozone's own secure compose clusters set hadoop.security.* there, so it stays.
func writeConf(dir string, props []property) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for _, p := range props {
		fmt.Fprintf(&b, "  <property><name>%s</name><value>%s</value></property>\n", html.EscapeString(p.key), html.EscapeString(p.value))
	}
	b.WriteString("</configuration>\n")
	site := b.String()
	for name, content := range map[string]string{"ozone-site.xml": site, "core-site.xml": site, "log4j.properties": log4j} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
