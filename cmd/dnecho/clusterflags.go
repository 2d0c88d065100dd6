package main

import (
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
)

// clusterFlags are the flags of `dnecho cluster`; its files beside cluster.go (clustersecure.go,
// cluster_slow.go) read them too.
type clusterFlags struct {
	opts    minicluster.Options
	confDir string
	faults  dnsim.Faults
	site    string        // server ozone-site.xml
	sets    []string      // server -D key=value
	leader  int           // 1-based on the command line
	rotate  time.Duration // move the leader this often; 0: never
	slow    []string      // --slow-datanode N=LATENCY
	hangSCM int           // 1-based; 0: none
}
