package main

import (
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/output"
)

// dashboardCharts are what the web dashboard of `dnecho run` charts: echometrics.Charts, the
// network RTT and retransmits per DataNode for its "Network vs DataNode" chart and table, short
// uuids in its legends, and the live slow-DataNode verdict, judged as the end of the test judges
// it (dnstats.Judge with opts) from the figures the dashboard aggregates. addrs, when set, gives
// the DataNodes' addresses by uuid, which no tag carries; it is called at each published period.
func dashboardCharts(opts dnstats.Options, addrs func() map[string]string) output.Charts {
	c := echometrics.Charts
	c.Network, c.Retransmits, c.Short = echometrics.TCPRTT, echometrics.TCPRetransmits, dnstats.ShortUUID
	c.Judge = func(servers []output.Server) []string {
		var known map[string]string
		if addrs != nil {
			known = addrs()
		}
		dns := make([]dnstats.DataNode, len(servers))
		for i, s := range servers {
			dns[i] = dnstats.DataNode{UUID: s.Name, Addr: known[s.Name], Calls: s.Calls, P50: millis(s.P50), P99: millis(s.P99),
				RTT: millis(s.Network), HasRTT: s.HasNetwork, Retransmits: uint64(s.Retransmits)}
			if s.Rank != nil {
				dns[i].Latencies = dnstats.Ranked(s.Calls, s.Rank, time.Millisecond)
			}
		}
		return dnstats.Judge(dns, opts).Lines()
	}
	return c
}

// millis is a time in ms as a Duration.
func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// addrs are the addresses of the DataNodes of the test's k6/x/dnecho root, by uuid; nil before
// the script imports it.
func (d *runDataNodes) addrs() map[string]string {
	root := d.root.Load()
	if root == nil {
		return nil
	}
	out := map[string]string{}
	for uuid, dn := range root.DataNodes() {
		out[uuid] = dn.Addr
	}
	return out
}
