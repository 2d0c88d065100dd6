// Package realozone starts a real Apache Ozone cluster on 127.0.0.1 from the release jars on
// Maven Central: one SCM, one Ozone Manager and N DataNodes, each a plain `java` process with its
// own conf dir, ports and data dirs, waiting until a RATIS/THREE pipeline is open. Tests and
// `make real-cluster` use it as the peer that dnecho must work with; Java freon runs from the same
// jars. docs/real-ozone.md has the recipe and what it took to make it work.
package realozone

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultDataNodes    = 3
	DefaultStartTimeout = 240 * time.Second
	DefaultHeap         = "512m"
)

// Options say what cluster to start.
type Options struct {
	// Dir is the work dir for conf dirs, data and logs; it must exist and be empty.
	Dir string
	// DataNodes is the number of DataNodes (DefaultDataNodes when 0).
	DataNodes int
	// Heap is each daemon's -Xmx (DefaultHeap when empty).
	Heap string
	// StartTimeout bounds the whole start, from SCM's init to an open pipeline.
	StartTimeout time.Duration
	// SCMs is the number of SCMs: 0 or 1 for one SCM, more for an SCM HA service (HAServiceID)
	// whose nodes are scm1, scm2, ... with scm1 the primordial node.
	SCMs int
	// Secure, when set, starts the cluster with Kerberos, tokens and TLS (one SCM only).
	Secure *Security
	// NetNS, when set, runs every process inside this network namespace on its address
	// instead of 127.0.0.1 (a secure cluster needs it for TLS).
	NetNS *NetNS
	// Extra are further ozone-site.xml entries for every process; they win over the defaults.
	Extra map[string]string
	// Progress receives one line per step (nil for none).
	Progress io.Writer
	// Classpath is the Ozone classpath when the caller already has it from Classpath; Start
	// resolves it when empty.
	Classpath string
}

// Cluster is a running real cluster.
type Cluster struct {
	// Dir is the work dir; logs are in Dir/logs/<role>.log.
	Dir string
	// ClientConf is the conf dir a client (dnecho --conf, Java freon) uses.
	ClientConf string
	// SCM is the (first) SCM's client address, OM the Ozone Manager's.
	SCM, OM string
	// SCMs are the SCM processes, in the order of ozone.scm.nodes.<service> (one without HA).
	SCMs []*SCMNode
	// DataNodes are the DataNode processes, in start order.
	DataNodes []*DataNode

	opts Options
	host string // the address every process uses
	om   omPorts

	mu    sync.Mutex
	procs map[string]*process
}

// DataNode is one DataNode process.
type DataNode struct {
	// Index counts from 1.
	Index int
	name  string
	host  string
	ports dnPorts
	// firstPorts are the ports it first registered with, once Restart has moved it.
	firstPorts dnPorts
}

// GRPC is the DataNode's Xceiver gRPC address (hdds.container.ipc.port).
func (d *DataNode) GRPC() string { return fmt.Sprintf("%s:%d", d.host, d.ports.ipc) }

// Ratis is the DataNode's Ratis client address (hdds.container.ratis.ipc.port).
func (d *DataNode) Ratis() string { return fmt.Sprintf("%s:%d", d.host, d.ports.ratisIPC) }

// UUID returns the DataNode's id, from the datanode.id file it writes at its first start.
func (c *Cluster) UUID(d *DataNode) (string, error) {
	b, err := os.ReadFile(filepath.Join(c.Dir, d.name, "meta", "datanode.id"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`uuid: *([0-9a-f-]{36})`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s: no uuid in datanode.id", d.name)
	}
	return string(m[1]), nil
}

// Host is the address every process of the cluster uses: 127.0.0.1, or the network namespace's.
func (c *Cluster) Host() string { return c.host }

// Command runs a program where the cluster runs (inside its network namespace, if any), e.g.
// dnecho against a secure cluster.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if c.opts.NetNS != nil {
		return c.opts.NetNS.Command(ctx, name, args...)
	}
	return exec.CommandContext(ctx, name, args...)
}

// Start starts SCM, OM and the DataNodes and waits for safe mode to end (which, with
// hdds.scm.safemode.min.datanode set to the DataNode count, means a RATIS/THREE pipeline is open).
// One real cluster starts at a time on a machine (lockStart); StartTimeout counts from its turn.
// On any failure it stops what it started and returns an error with the failing process's log tail.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataNodes == 0 {
		opts.DataNodes = DefaultDataNodes
	}
	if opts.Heap == "" {
		opts.Heap = DefaultHeap
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Classpath == "" {
		cp, err := Classpath(ctx, nil)
		if err != nil {
			return nil, err
		}
		opts.Classpath = cp
	}
	if opts.SCMs > 1 && opts.Secure != nil {
		return nil, errors.New("real ozone: an SCM HA cluster is started insecure only")
	}
	unlock, err := lockStart(ctx, opts.Progress)
	if err != nil {
		return nil, fmt.Errorf("real ozone %s: %w", Version, err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout) // counted once this start may run
	defer cancel()
	for attempt := 1; ; attempt++ {
		dir := opts.Dir
		if attempt > 1 {
			dir = filepath.Join(opts.Dir, fmt.Sprintf("attempt%d", attempt))
		}
		c := &Cluster{Dir: dir, ClientConf: filepath.Join(dir, "conf", "client"), opts: opts, host: "127.0.0.1", procs: map[string]*process{}}
		if opts.NetNS != nil {
			c.host = opts.NetNS.Addr
		}
		err := c.layout()
		if err == nil {
			err = c.boot(ctx)
		}
		if err == nil {
			return c, nil
		}
		c.Stop()
		if ctx.Err() != nil {
			err = fmt.Errorf("not ready within %s: %w", opts.StartTimeout, err)
		}
		// Another process may bind one of the probed ports before the JVM does.
		if attempt < 3 && ctx.Err() == nil && strings.Contains(err.Error(), "Address already in use") {
			c.step("a port was taken before its daemon bound it: starting again on new ports")
			continue
		}
		return nil, fmt.Errorf("real ozone %s: %w", Version, err)
	}
}

// layout picks the ports and writes every conf dir.
func (c *Cluster) layout() (err error) {
	pp := portPicker{inNetNS: c.opts.NetNS != nil}
	defer pp.release()
	if c.SCMs, err = c.scmNodes(&pp); err != nil {
		return err
	}
	if c.om, err = pp.om(); err != nil {
		return err
	}
	c.SCM = c.SCMs[0].Client
	c.OM = fmt.Sprintf("%s:%d", c.host, c.om.rpc)
	for i := 1; i <= c.opts.DataNodes; i++ {
		d := &DataNode{Index: i, name: fmt.Sprintf("dn%d", i), host: c.host}
		if d.ports, err = pp.dataNode(); err != nil {
			return err
		}
		c.DataNodes = append(c.DataNodes, d)
	}
	for _, dir := range []string{"logs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, dir), 0o755); err != nil {
			return err
		}
	}
	for _, role := range []string{"om", "client"} {
		props := append(c.shared(), property{"ozone.metadata.dirs", filepath.Join(c.Dir, role, "meta")})
		if err := writeConf(c.confDir(role), props); err != nil {
			return err
		}
	}
	for _, s := range c.SCMs {
		if err := writeConf(c.confDir(s.ID), append(c.shared(), c.scmProps(s)...)); err != nil {
			return err
		}
	}
	for _, d := range c.DataNodes {
		if err := c.writeDataNodeConf(d); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) confDir(role string) string { return filepath.Join(c.Dir, "conf", role) }

func (c *Cluster) writeDataNodeConf(d *DataNode) error {
	return writeConf(c.confDir(d.name), append(c.shared(), c.dataNodeProps(d)...))
}

// Main classes of Ozone 2.2.0 (docs/real-ozone.md, "Main classes").
const (
	scmMain   = "org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter"
	omMain    = "org.apache.hadoop.ozone.om.OzoneManagerStarter"
	dnMain    = "org.apache.hadoop.ozone.HddsDatanodeService"
	adminMain = "org.apache.hadoop.ozone.admin.OzoneAdmin"
	freonMain = "org.apache.hadoop.ozone.freon.Freon"
)

// boot runs the start order: SCM init, SCM, OM init, OM, DataNodes, safe-mode exit. The further
// SCMs of an HA service (bootstrap, start; one after the other) join meanwhile, once the first
// one leads (docs/real-ozone-ha.md).
func (c *Cluster) boot(ctx context.Context) error {
	if err := c.bootSCM(ctx, c.SCMs[0], true); err != nil {
		return err
	}
	others := make(chan error, 1)
	go func() {
		for _, s := range c.SCMs[1:] {
			if err := c.bootSCM(ctx, s, false); err != nil {
				others <- err
				return
			}
		}
		others <- nil
	}()
	err := c.bootRest(ctx)
	if errOthers := <-others; err == nil && errOthers != nil {
		return errOthers
	}
	if err != nil {
		return err
	}
	c.step("waiting for SCM to leave safe mode (an open RATIS/THREE pipeline)")
	return c.waitSafeModeExit(ctx)
}

// bootRest starts what follows the first SCM: OM init, OM, DataNodes.
func (c *Cluster) bootRest(ctx context.Context) error {
	c.step("initialising OM")
	if out, err := c.runOnce(ctx, "om-init", "om", omMain, "--init"); err != nil {
		return fmt.Errorf("om --init: %w\n%s", err, tail(out, 20))
	}
	c.step("starting OM on " + c.OM)
	if err := c.startDaemon("om", "om", omMain); err != nil {
		return err
	}
	c.step(fmt.Sprintf("starting %d DataNodes", len(c.DataNodes)))
	for _, d := range c.DataNodes {
		if err := c.startDaemon(d.name, d.name, dnMain); err != nil {
			return err
		}
	}
	return nil
}

// waitSafeModeExit runs `ozone admin safemode wait` until the deadline, failing early when a
// daemon has exited.
func (c *Cluster) waitSafeModeExit(ctx context.Context) error {
	deadline, _ := ctx.Deadline()
	secs := int(time.Until(deadline).Seconds())
	if secs < 1 {
		secs = 1
	}
	done := make(chan error, 1)
	var out string
	go func() {
		var err error
		out, err = c.Admin(ctx, "safemode", "wait", "-t", strconv.Itoa(secs))
		done <- err
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("safe mode did not end: %w\n%s\nscm log:\n%s", err, tail(out, 5), c.LogTail(c.SCMs[0].ID, 20))
			}
			return nil
		case <-tick.C:
			if err := c.exited(); err != nil {
				return err
			}
		}
	}
}

// CreateContainer allocates a RATIS/THREE container and returns its id. When SCM has no open
// pipeline to put it on (a test closed one, or a Raft group did not survive an outage), it asks
// again until SCM has made a new one or ctx ends: the admin client itself gives up after
// hdds.scmclient.max.retry.timeout, before a replaced pipeline is open on a busy machine.
func (c *Cluster) CreateContainer(ctx context.Context) (int64, error) {
	var out string
	var err error
	for {
		out, err = c.Admin(ctx, "container", "create", "-t", "RATIS", "-r", "THREE")
		if err == nil || !noOpenPipeline(out) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if err != nil {
		return 0, fmt.Errorf("container create: %w\n%s", err, tail(out, 10))
	}
	m := regexp.MustCompile(`Container (\d+) is created`).FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("container create: no id in %q", tail(out, 5))
	}
	return strconv.ParseInt(m[1], 10, 64)
}

// noOpenPipeline tells whether `container create` failed only because SCM has no open
// RATIS/THREE pipeline yet (the old one closed and not yet replaced).
func noOpenPipeline(out string) bool {
	return strings.Contains(out, "Cannot get any matching pipeline") || strings.Contains(out, "would exceed the limit per datanode")
}

// CloseContainer asks SCM to close a container and waits until SCM reports it CLOSED.
func (c *Cluster) CloseContainer(ctx context.Context, id int64) error {
	if out, err := c.Admin(ctx, "container", "close", strconv.FormatInt(id, 10)); err != nil {
		return fmt.Errorf("container close %d: %w\n%s", id, err, tail(out, 10))
	}
	for {
		out, err := c.Admin(ctx, "container", "info", strconv.FormatInt(id, 10))
		if err == nil && strings.Contains(out, "Container State: CLOSED") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("container %d not CLOSED: %w\n%s", id, ctx.Err(), tail(out, 5))
		case <-time.After(2 * time.Second):
		}
	}
}

// Admin runs `ozone admin ARGS` with the client conf and returns its combined output.
func (c *Cluster) Admin(ctx context.Context, args ...string) (string, error) {
	return c.runOnce(ctx, "", "client", adminMain, args...)
}

// step reports progress.
func (c *Cluster) step(s string) {
	if c.opts.Progress != nil {
		fmt.Fprintf(c.opts.Progress, "real ozone %s: %s\n", Version, s)
	}
}

// LogTail returns the last n lines of a process's log ("scm" or "scm1", "om", "dn1", ...).
func (c *Cluster) LogTail(name string, n int) string {
	b, err := os.ReadFile(filepath.Join(c.Dir, "logs", name+".log"))
	if err != nil {
		return err.Error()
	}
	return tail(string(b), n)
}

// errExited is returned when a daemon stops on its own.
var errExited = errors.New("exited")
