package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
)

func newClusterCommand(sig *signals, s streams) *cobra.Command {
	f := &clusterFlags{}
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run an emulated Ozone cluster (SCM + DataNodes) on 127.0.0.1 until Ctrl-C",
		Long: `Run an emulated Ozone cluster on 127.0.0.1: an SCM (or an SCM HA group) speaking Hadoop RPC v9 and
DataNodes serving the gRPC Xceiver Echo, wired like a real cluster (one pipeline over every DataNode,
open containers on it). It rejects what real Ozone rejects, so a client that works here speaks the
real protocols.

The pipeline is an emulated Raft group on the DataNodes' RATIS ports (for dn-echo --ratis): a
leader, followers answering NotLeader, writes answered once a majority holds them and applied on
every replica, reads served by the leader. --replication-delay, --handlers and --leader-every
reproduce slow followers, the handler queueing of HDDS-11224 and leader changes mid-run.

It writes ozone-site.xml (and cluster.json, and ca.pem with --tls) into --conf-dir, so any dnecho
command can use it with --conf DIR. With TLS an emulated Ozone Manager hands out the CA certificates.
Like every dnecho command it leaves the machine's CPU to the load tool by not collecting garbage
below 64 MiB of heap, unless GOGC is set (see dnecho --help).

Secure clusters: -D (or --site) takes the keys a real SCM and OM read; with
hadoop.security.authentication=kerberos the SCM and the OM accept only Kerberos (SASL GSSAPI, with the
keytabs and principals given; KRB5_CONFIG names krb5.conf), offer hadoop.rpc.protection, and SCM admits
only the users of ozone.administrators to GetContainer and GetContainerToken. The written
ozone-site.xml holds the matching client keys.`,
		Example: `  dnecho cluster --conf-dir /tmp/mini &
  dnecho freon dn-echo --conf /tmp/mini --container-id 1 -n 10000 -t 8

  dnecho cluster --conf-dir /tmp/secure --tokens --tls -D ozone.security.enabled=true \
    -D hadoop.security.authentication=kerberos -D hadoop.rpc.protection=privacy \
    -D hdds.scm.kerberos.principal=scm/localhost@EXAMPLE.COM -D hdds.scm.kerberos.keytab.file=scm.keytab \
    -D ozone.om.kerberos.principal=om/localhost@EXAMPLE.COM -D ozone.om.kerberos.keytab.file=om.keytab \
    -D ozone.administrators=alice &
  kinit alice; dnecho freon dn-echo --conf /tmp/secure --container-id 1

  dnecho cluster --conf-dir /tmp/mini-ha --scms 3 --tokens --latency 200us --jitter 100us
  dnecho cluster --conf-dir /tmp/mini-hung --scms 3 --hang-scm 1
  dnecho cluster --conf-dir /tmp/mini --handlers 1 --replication-delay 2ms --leader-every 10s
  dnecho cluster --conf-dir /tmp/mini --datanodes 3 --slow-datanode 2=5ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCluster(sig, s, f)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.confDir, "conf-dir", "", "directory to write ozone-site.xml and cluster.json into (default: a new temporary directory)")
	fl.IntVar(&f.opts.DataNodes, "datanodes", minicluster.DefaultDataNodes, "number of DataNodes (all in the one pipeline)")
	fl.Int64SliceVar(&f.opts.Containers, "containers", minicluster.DefaultContainers, "open container ids on the pipeline")
	fl.IntVar(&f.opts.SCMs, "scms", 1, "number of SCMs; more than 1 is SCM HA (node 1 leads, followers answer ServerNotLeaderException)")
	fl.IntVar(&f.hangSCM, "hang-scm", 0, "SCM N (1-based) hangs like a SIGSTOPped SCM: it accepts connections and never answers; with --scms > 1 the leadership moves to the next SCM")
	fl.BoolVar(&f.opts.Tokens, "tokens", false, "container tokens: SCM signs them, DataNodes require one (hdds.container.token.enabled)")
	fl.BoolVar(&f.opts.TLS, "tls", false, "serve the DataNodes over TLS (self-signed CAs written to ca.pem)")
	fl.StringArrayVarP(&f.sets, "set", "D", nil, "server configuration key=value, read as a real SCM and OM read it (repeatable): "+serverKeysHelp)
	fl.StringVar(&f.site, "site", "", "server ozone-site.xml to read the same keys from (-D wins)")
	fl.StringVar(&f.opts.SCMAddr, "scm-addr", "", "SCM listen address, 127.0.0.1:PORT (default a free port; not with --scms > 1)")
	fl.DurationVar(&f.faults.Latency, "latency", 0, "latency the DataNodes add to every call")
	fl.DurationVar(&f.faults.Jitter, "jitter", 0, "further random latency in [0, jitter)")
	fl.StringArrayVar(&f.slow, "slow-datanode", nil, "DataNode N (1-based) adds LATENCY to every call instead of --latency: N=LATENCY, e.g. 2=5ms (repeatable)")
	fl.Float64Var(&f.faults.ErrorRate, "error-rate", 0, "fraction (0-1) of calls the DataNodes fail with CONTAINER_INTERNAL_ERROR")
	fl.IntVar(&f.leader, "leader", 1, "DataNode (1-based) that leads the pipeline's Raft group first; SCM lists it as the leader")
	fl.BoolVar(&f.opts.HideLeader, "hide-leader", false, "SCM lists no leader, so Ratis clients start at the first DataNode")
	fl.DurationVar(&f.opts.ReplicationDelay, "replication-delay", 0, "how long after the leader logs a Ratis write each follower holds it")
	fl.DurationVar(&f.opts.ReadyDelay, "ready-delay", 0, "how long a new leader answers LeaderNotReady after a move")
	fl.IntVar(&f.opts.HandlerCount, "handlers", dnsim.DefaultHandlerCount, "hdds.datanode.handler.count: Ratis-path Echoes one DataNode runs at once")
	fl.DurationVar(&f.rotate, "leader-every", 0, "move the leadership to the next DataNode this often (0: never)")
	return cmd
}

// check rejects what the flags cannot mean. minicluster reads a zero count as its default, so
// an explicit --datanodes 0 or --scms 0 must be refused here, not quietly replaced.
func (f *clusterFlags) check() error {
	switch {
	case f.opts.DataNodes < 1 || f.opts.DataNodes > minicluster.MaxDataNodes:
		return fmt.Errorf("--datanodes %d: use 1 to %d", f.opts.DataNodes, minicluster.MaxDataNodes)
	case f.opts.SCMs < 1 || f.opts.SCMs > minicluster.MaxSCMs:
		return fmt.Errorf("--scms %d: use 1 (no HA) to %d", f.opts.SCMs, minicluster.MaxSCMs)
	case len(f.opts.Containers) == 0:
		return fmt.Errorf("--containers is empty: give at least one container id, e.g. 1,2,3")
	case !(f.faults.ErrorRate >= 0 && f.faults.ErrorRate <= 1): // also rejects NaN
		return fmt.Errorf("--error-rate %v: use a fraction from 0 to 1", f.faults.ErrorRate)
	case f.faults.Latency < 0 || f.faults.Jitter < 0:
		return fmt.Errorf("--latency %s / --jitter %s: can't be negative", f.faults.Latency, f.faults.Jitter)
	case f.hangSCM < 0 || f.hangSCM > f.opts.SCMs:
		return fmt.Errorf("--hang-scm %d: use an SCM from 1 to %d (--scms), or 0 for none", f.hangSCM, f.opts.SCMs)
	case f.opts.SCMs > 1 && f.opts.SCMAddr != "":
		return fmt.Errorf("--scm-addr works only with one SCM")
	case f.leader < 1 || f.leader > f.opts.DataNodes:
		return fmt.Errorf("--leader %d: use a DataNode from 1 to %d", f.leader, f.opts.DataNodes)
	case f.opts.HandlerCount < 1:
		return fmt.Errorf("--handlers %d: use 1 or more", f.opts.HandlerCount)
	case f.opts.ReplicationDelay < 0 || f.opts.ReadyDelay < 0 || f.rotate < 0:
		return fmt.Errorf("--replication-delay, --ready-delay and --leader-every can't be negative")
	}
	if _, err := slowDataNodes(f.slow, f.opts.DataNodes); err != nil {
		return err
	}
	return minicluster.CheckContainers(f.opts.Containers)
}

func runCluster(sig *signals, s streams, f *clusterFlags) error {
	if err := f.check(); err != nil {
		return withCode(exitUsage, err)
	}
	if err := f.applyServerConfig(); err != nil {
		return withCode(exitUsage, err)
	}
	dir := f.confDir
	if dir == "" {
		d, err := os.MkdirTemp("", "dnecho-cluster-")
		if err != nil {
			return withCode(exitcode.Failure, err)
		}
		dir = d
	}
	dir, _ = filepath.Abs(dir)
	f.opts.Faults = f.faults
	f.opts.Leader = f.leader - 1
	c, err := minicluster.Start(f.opts)
	if err != nil {
		return withCode(exitcode.Failure, fmt.Errorf("start the mini cluster: %w", err))
	}
	defer c.Close()
	if err := f.slowDown(c); err != nil {
		return withCode(exitcode.Failure, err)
	}
	if f.hangSCM > 0 {
		if err := c.HangSCM(f.hangSCM - 1); err != nil {
			return withCode(exitcode.Failure, err)
		}
	}
	if err := c.WriteConf(dir); err != nil {
		return withCode(exitcode.Failure, fmt.Errorf("write the configuration: %w", err))
	}
	info := c.Info()
	fmt.Fprintf(s.out, "dnecho mini cluster running on 127.0.0.1 (Ctrl-C to stop)\n")
	fmt.Fprintf(s.out, "  SCM:        %s\n", strings.Join(info.SCM, ", "))
	if f.hangSCM > 0 {
		fmt.Fprintf(s.out, "  SCM %d hangs: it accepts connections and never answers\n", f.hangSCM)
	}
	for i, dn := range info.DataNodes {
		fmt.Fprintf(s.out, "  DataNode %d: %s  uuid %s  RATIS %s\n", i+1, dn.Addr, dn.UUID, dn.RatisAddr)
	}
	fmt.Fprintf(s.out, "  pipeline:   %s (%d replicas, leader DataNode %d), open containers %s\n", info.PipelineID, len(info.DataNodes), f.leader, joinInts(info.Containers))
	fmt.Fprintf(s.out, "  tokens: %v, TLS: %v, Kerberos: %v\n", info.Tokens, info.TLS, info.Kerberos)
	if len(info.OM) > 0 {
		fmt.Fprintf(s.out, "  OM:         %s (serves the CA certificates)\n", strings.Join(info.OM, ", "))
	}
	fmt.Fprintf(s.out, "  config:     %s\n\n", filepath.Join(dir, "ozone-site.xml"))
	kinit := ""
	if info.Kerberos {
		kinit = "kinit <an administrator>; "
	}
	fmt.Fprintf(s.out, "try: %sdnecho freon dn-echo --conf %s --container-id %d -n 10000 -t 8 [--ratis [--read-only]]\n", kinit, dir, info.Containers[0])
	if f.rotate > 0 {
		rotateLeader(sig.soft, s, c, f.rotate)
	}
	<-sig.soft.Done()
	fmt.Fprintln(s.out, "mini cluster stopped")
	return nil
}

func joinInts(xs []int64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

// rotateLeader moves the pipeline's leadership to the next DataNode every interval until ctx ends.
func rotateLeader(ctx context.Context, s streams, c *minicluster.Cluster, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	n := len(c.DataNodes())
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			to := (c.Group().Leader() + 1) % n
			if err := c.TransferLeadership(to); err != nil {
				fmt.Fprintf(s.err, "move leadership: %v\n", err)
				continue
			}
			fmt.Fprintf(s.out, "leadership moved to DataNode %d\n", to+1)
		}
	}
}
