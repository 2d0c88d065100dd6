package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/minicluster"
)

// slowDataNodes parses --slow-datanode N=LATENCY values: DataNode N (1-based, of datanodes) adds
// LATENCY to every call instead of --latency, so one replica stands out (a slow disk, a busy
// node) for the per-DataNode block and the slow-DataNode verdict to find.
func slowDataNodes(values []string, datanodes int) (map[int]time.Duration, error) {
	out := map[int]time.Duration{}
	for _, v := range values {
		n, lat, ok := strings.Cut(v, "=")
		i, err := strconv.Atoi(n)
		if !ok || err != nil || i < 1 || i > datanodes {
			return nil, fmt.Errorf("--slow-datanode %q: want N=LATENCY with N a DataNode from 1 to %d, e.g. 2=5ms", v, datanodes)
		}
		d, err := time.ParseDuration(lat)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--slow-datanode %q: want N=LATENCY with LATENCY a duration such as 5ms", v)
		}
		out[i-1] = d
	}
	return out, nil
}

// slowDown applies the --slow-datanode latencies to the started cluster, over the other faults.
func (f *clusterFlags) slowDown(c *minicluster.Cluster) error {
	slow, err := slowDataNodes(f.slow, len(c.DataNodes()))
	if err != nil {
		return err
	}
	for i, d := range slow {
		faults := f.faults
		faults.Latency = d
		if err := c.DataNodes()[i].SetFaults(faults); err != nil {
			return fmt.Errorf("--slow-datanode %d: %w", i+1, err)
		}
	}
	return nil
}
