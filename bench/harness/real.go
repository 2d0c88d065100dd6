package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/testsupport/realozone"
)

// Defaults of the section against a real DataNode: about five minutes on two cores, the cluster's
// start (40-80 s) aside.
const (
	DefaultRealCalls      = 50000
	DefaultRealRatisCalls = 5000
	DefaultRealCallsMiB   = 1000
	DefaultRealReps       = 3
)

// realConfig is the command line of the section against a real DataNode.
type realConfig struct {
	on                bool
	calls, ratisCalls int
	callsMiB          int // the 1 MiB row
	reps              int
}

// realTarget is what the section measures against: one RATIS/THREE container of a real cluster
// and the pipeline member a gRPC Echo goes to.
type realTarget struct {
	config
	real       realConfig
	cluster    *realozone.Cluster
	container  int64
	dn         datanode.DataNode // the first member in the Java client's order
	dnPIDs     []int             // every DataNode process (Ratis calls reach all three)
	ghzRequest string
	// h2load's -d files: the request with an empty response, and with 1 MiB.
	h2loadRequest, h2loadRequestMiB string
	scorecard
}

// benchReal starts a real cluster, measures every row against it and stops the cluster, also
// when a tool fails or the harness gets SIGINT or SIGTERM. Without java and mvn it prints one
// line and returns.
func benchReal(c config, rc realConfig) (err error) {
	if err := realozone.Available(); err != nil {
		fmt.Printf("\nagainst a real DataNode (Apache Ozone %s): left out: %v\n", realozone.Version, err)
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp("", "dnecho-bench-real-")
	if err != nil {
		return err
	}
	defer func() {
		switch {
		case ctx.Err() != nil:
			os.RemoveAll(dir)
			err = fmt.Errorf("real DataNode: interrupted (%v); the cluster is stopped", err)
		case err == nil:
			os.RemoveAll(dir)
		default:
			err = fmt.Errorf("%w\n(real cluster logs kept in %s)", err, filepath.Join(dir, "ozone", "logs"))
		}
	}()
	if err := os.Mkdir(filepath.Join(dir, "ozone"), 0o755); err != nil {
		return err
	}
	start := time.Now()
	cl, err := realozone.Start(ctx, realozone.Options{Dir: filepath.Join(dir, "ozone"), Progress: os.Stderr})
	if err != nil {
		return err
	}
	defer cl.Stop()
	fmt.Fprintf(os.Stderr, "bench: real cluster ready in %.0f s\n", time.Since(start).Seconds())
	t := &realTarget{config: c, real: rc, cluster: cl}
	if err := t.prepare(ctx, dir); err != nil {
		return err
	}
	return t.table(ctx)
}

// prepare creates the container, finds the member gRPC calls go to and writes ghz's request.
func (t *realTarget) prepare(ctx context.Context, dir string) error {
	id, err := t.cluster.CreateContainer(ctx)
	if err != nil {
		return err
	}
	t.container = id
	if t.dn, err = firstMember(ctx, t.cluster.SCM, id); err != nil {
		return err
	}
	for name, pid := range t.cluster.PIDs() {
		if strings.HasPrefix(name, "dn") {
			t.dnPIDs = append(t.dnPIDs, pid)
		}
	}
	slices.Sort(t.dnPIDs)
	if t.ghz != "" {
		if t.ghzRequest, err = writeGhzRequest(dir, id, t.dn.UUID); err != nil {
			return err
		}
	}
	if t.h2load != "" {
		if t.h2loadRequest, err = writeH2loadRequest(dir, id, t.dn.UUID, 0); err != nil {
			return err
		}
		if t.h2loadRequestMiB, err = writeH2loadRequest(dir, id, t.dn.UUID, respMiB*1024); err != nil {
			return err
		}
	}
	return nil
}

// firstMember asks SCM for the container's pipeline as freon does and returns the member that
// dnecho freon and Java freon send a gRPC Echo to: the first in the Java client's order. A real
// DataNode checks the request's datanodeUuid, so raw and ghz need it as well as the address.
func firstMember(ctx context.Context, scmAddr string, container int64) (datanode.DataNode, error) {
	sc, err := scm.New(scm.Options{Addresses: []string{scmAddr}, MaxRetries: 10})
	if err != nil {
		return datanode.DataNode{}, err
	}
	defer sc.Close()
	l, err := sc.LookupPipeline(ctx, uint64(container), scm.LookupFreon)
	if err != nil {
		return datanode.DataNode{}, fmt.Errorf("scm %s: container %d: %w", scmAddr, container, err)
	}
	dc, err := datanode.New(l.Pipeline, datanode.Options{})
	if err != nil {
		return datanode.DataNode{}, fmt.Errorf("container %d: %w", container, err)
	}
	defer dc.Close()
	return dc.Members()[0], nil
}

// dnCPU is the CPU the DataNode processes have used so far.
func (t *realTarget) dnCPU() (time.Duration, error) {
	var sum time.Duration
	for _, pid := range t.dnPIDs {
		d, err := procCPU(pid)
		if err != nil {
			return 0, fmt.Errorf("DataNode pid %d: %w", pid, err)
		}
		sum += d
	}
	return sum, nil
}

// loadAverage is /proc/loadavg's first three fields, for the record of how busy the machine was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
