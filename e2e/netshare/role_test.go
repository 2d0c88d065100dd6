package netshare

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/ozone/echo"
)

// The test binary plays two more roles inside the namespace, chosen by roleEnv: an emulated
// cluster, and a client that measures. Both must run there because the emulator serves on
// 127.0.0.1, which is the namespace's own loopback (whose traffic the test shapes).
const (
	roleEnv    = "DNECHO_NETSHARE_ROLE"
	confEnv    = "DNECHO_NETSHARE_CONF"
	loadEnv    = "DNECHO_NETSHARE_LOAD"
	latencyEnv = "DNECHO_NETSHARE_LATENCY"
)

// load is what one measurement asks for: workers, each with a client (so a connection) of its
// own, asking for responses of resp bytes. A queue in the network then holds every worker's
// response, whatever each connection's HTTP/2 window (grpc-go sizes it from its own estimate of
// the bandwidth-delay product, so one shared connection may keep much of the waiting data in the
// DataNode's buffers, where the kernel's RTT cannot see it).
type load struct{ workers, resp int }

// queueLoad keeps a rate limit's queue full: with 16 responses of 16 KiB waiting, a segment
// waits about the whole queue (105 ms at 20 Mbit/s) and its own response's transfer (6.5 ms) is
// a small part of a call, so the sampled RTT explains most of the latency. With 4 × 64 KiB it
// explained 77% of it on a quiet machine and 42% with make test running beside it.
var queueLoad = load{workers: 16, resp: 16 << 10}

// callLoad measures the slowed DataNode: fewer connections, so fewer requests wait for their
// ACK on a response that the DataNode holds back (docs/network.md, "Reading DataNode time"):
// with 16 connections the RTT grew by 45% of the latency's growth, with 4 by about a third.
var callLoad = load{workers: 4, resp: 64 << 10}

func (l load) String() string { return fmt.Sprintf("%d/%d", l.workers, l.resp) }

func parseLoad(s string) (load, error) {
	var l load
	if _, err := fmt.Sscanf(s, "%d/%d", &l.workers, &l.resp); err != nil || l.workers < 1 || l.resp < 0 {
		return l, fmt.Errorf("%s %q: want WORKERS/BYTES", loadEnv, s)
	}
	return l, nil
}

const (
	warmup      = 500 * time.Millisecond
	measureFor  = 3 * time.Second
	watchPeriod = 20 * time.Millisecond
)

// figures are what one measurement saw: medians over its calls and over its samples.
type figures struct {
	Calls       int
	Failed      int
	Latency     time.Duration // median echo latency
	RTT         time.Duration // median sampled smoothed RTT
	MinRTT      time.Duration // the last sample's windowed minimum
	Retransmits uint64        // during the measurement
	Samples     int
	FirstError  string `json:",omitempty"`
}

// Rest is the median latency less the median RTT: what the network's RTT does not explain.
func (f figures) Rest() time.Duration { return f.Latency - f.RTT }

func (f figures) String() string {
	return fmt.Sprintf("latency %v, RTT %v (rest %v), min RTT %v, %d retransmits, %d calls (%d failed %s), %d samples",
		f.Latency, f.RTT, f.Rest(), f.MinRTT, f.Retransmits, f.Calls, f.Failed, f.FirstError, f.Samples)
}

// runRole runs the role roleEnv names and returns the exit code; ok is false when there is none.
func runRole() (code int, ok bool) {
	var err error
	switch os.Getenv(roleEnv) {
	case "":
		return 0, false
	case "cluster":
		err = serveCluster(os.Getenv(confEnv), os.Getenv(latencyEnv))
	case "measure":
		var f figures
		var l load
		if l, err = parseLoad(os.Getenv(loadEnv)); err != nil {
			break
		}
		if f, err = measure(os.Getenv(confEnv), l); err == nil {
			err = json.NewEncoder(os.Stdout).Encode(f)
		}
	default:
		err = fmt.Errorf("unknown %s %q", roleEnv, os.Getenv(roleEnv))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	return 0, true
}

// serveCluster runs a one-DataNode emulated cluster, its configuration in dir, until stdin ends.
func serveCluster(dir, latency string) error {
	lat, err := time.ParseDuration(latency)
	if err != nil {
		return fmt.Errorf("%s: %w", latencyEnv, err)
	}
	c, err := minicluster.Start(minicluster.Options{DataNodes: 1, Faults: dnsim.Faults{Latency: lat}})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.WriteConf(dir); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // the test closes it, or kills the process
	return nil
}

// measure runs the load against the cluster in dir and samples the network meanwhile.
func measure(dir string, l load) (figures, error) {
	sess, err := echo.Open(context.Background(), echo.Spec{Cluster: echo.Cluster{ConfDir: dir}, ContainerID: 1, Clients: l.workers,
		Request: echo.Request{PayloadResp: int64(l.resp)}}, nil)
	if err != nil {
		return figures{}, err
	}
	defer sess.Close()
	start := time.Now()
	end := start.Add(warmup + measureFor)
	var mu sync.Mutex
	var f figures
	var lat, rtt []time.Duration
	var retrans0, retrans uint64
	stop := sess.WatchNetwork(watchPeriod, func(ss []echo.NetworkSample) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range ss {
			switch {
			case s.At.Sub(start) < warmup:
				retrans0 = s.Retransmits
			default:
				rtt = append(rtt, s.RTT)
				f.MinRTT, retrans = s.MinRTT, s.Retransmits
			}
		}
	})
	var wg sync.WaitGroup
	for w := range uint64(l.workers) {
		wg.Go(func() {
			// No call is cut short: one cut by a deadline would be a failure, not a measurement.
			for time.Now().Before(end) {
				r := sess.Echo(context.Background(), w)
				mu.Lock()
				if time.Since(start) >= warmup {
					f.Calls++
					if !r.OK() {
						f.Failed++
						if f.FirstError == "" {
							f.FirstError = r.Err.Error()
						}
					}
					lat = append(lat, r.Latency)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	stop()
	f.Latency, f.RTT, f.Samples, f.Retransmits = median(lat), median(rtt), len(rtt), retrans-retrans0
	if f.Samples == 0 || f.Calls == 0 {
		return f, fmt.Errorf("no samples or no calls: %v", f)
	}
	return f, nil
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
