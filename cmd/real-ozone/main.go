// Command real-ozone starts a real Apache Ozone cluster (SCM, OM, three DataNodes, one RATIS/THREE
// pipeline and an open container) on 127.0.0.1 from the release jars on Maven Central, prints the
// --conf to give dnecho, and runs until Ctrl-C. `make real-cluster` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/dnecho/dnecho/testsupport/realozone"
)

func main() {
	dir := flag.String("dir", "", "work dir for conf, data and logs (default: a new temp dir, removed on exit)")
	datanodes := flag.Int("datanodes", realozone.DefaultDataNodes, "number of DataNodes (3 or more for a RATIS/THREE pipeline)")
	scms := flag.Int("scms", 1, "number of SCMs; more than 1 starts an SCM HA service ("+realozone.HAServiceID+")")
	fetch := flag.Bool("fetch-only", false, "resolve the Ozone jars with Maven into the cache and exit")
	timeout := flag.Duration("start-timeout", realozone.DefaultStartTimeout, "give up when the cluster is not ready within this")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: real-ozone [options]\n\nStarts Apache Ozone %s (SCM, OM, DataNodes) on 127.0.0.1 with plain java and prints how\nto point dnecho and Java freon at it. Needs java 17 and mvn; jars come from Maven Central\ninto ~/.m2 (classpath cached in %s).\n\n", realozone.Version, realozone.CacheDir())
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*dir, *datanodes, *scms, *fetch, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "real-ozone:", err)
		os.Exit(1)
	}
}

func run(dir string, datanodes, scms int, fetchOnly bool, timeout time.Duration) error {
	if datanodes < 3 {
		return fmt.Errorf("-datanodes %d: at least 3 are needed for a RATIS/THREE pipeline", datanodes)
	}
	if scms < 1 {
		return fmt.Errorf("-scms %d: use 1 (no HA) or more", scms)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cp, err := realozone.Classpath(ctx, os.Stderr)
	if err != nil {
		return err
	}
	if fetchOnly {
		fmt.Printf("Apache Ozone %s jars resolved (classpath in %s)\n", realozone.Version, realozone.CacheDir())
		return nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "real-ozone-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	start := time.Now()
	c, err := realozone.Start(ctx, realozone.Options{Dir: dir, DataNodes: datanodes, SCMs: scms, StartTimeout: timeout, Progress: os.Stderr, Classpath: cp})
	if err != nil {
		return err
	}
	defer c.Stop()
	id, err := c.CreateContainer(ctx)
	if err != nil {
		return err
	}
	var scmAddrs []string
	for _, s := range c.SCMs {
		scmAddrs = append(scmAddrs, s.ID+"="+s.Client)
	}
	fmt.Printf(`Apache Ozone %s is running (ready in %.0f s): SCM %s, OM %s, %d DataNodes, container %d (RATIS/THREE).
Logs: %s/logs

  dnecho freon dn-echo --conf %s --container-id %d -n 10000 -t 8
  dnecho freon dn-echo --conf %s --container-id %d -n 1000 -t 8 --ratis
  OZONE_CONF_DIR=%s dnecho run examples/quickstart.js

Ctrl-C stops every process.
`, realozone.Version, time.Since(start).Seconds(), strings.Join(scmAddrs, ", "), c.OM, len(c.DataNodes), id, dir, c.ClientConf, id, c.ClientConf, id, c.ClientConf)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "real-ozone: stopping")
	return nil
}
