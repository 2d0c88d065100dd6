package main

import (
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/ozone/echo"
)

// dashboardCharts are what the web dashboard of `dnecho run` charts: echometrics.Charts, the
// network RTT and retransmits per DataNode for its "Network vs DataNode" chart and table, short
// uuids in its legends, and the live slow-DataNode verdict, judged as the end of the test judges
// it (dnstats.Judge with opts) from the figures the dashboard aggregates. addrs, when set, gives
// the DataNodes' addresses by uuid and mode, which no tag carries; it is called at each published
// period.
func dashboardCharts(opts dnstats.Options, addrs func() func(string, echo.Mode) string) output.Charts {
	c := echometrics.Charts
	c.Network, c.Retransmits, c.Short = echometrics.TCPRTT, echometrics.TCPRetransmits, dnstats.ShortUUID
	c.Judge = func(servers []output.Server) []string {
		var addr func(string, echo.Mode) string
		if addrs != nil {
			addr = addrs()
		}
		dns := make([]dnstats.DataNode, len(servers))
		for i, s := range servers {
			dns[i] = dnstats.DataNode{UUID: s.Name, Mode: s.Mode, Attempts: s.Attempts, Failed: s.Failed, P50: millis(s.P50), P99: millis(s.P99),
				RTT: millis(s.Network), HasRTT: s.HasNetwork, Retransmits: uint64(s.Retransmits)}
			if addr != nil {
				dns[i].Addr = addr(s.Name, echo.Mode(s.Mode))
			}
			if s.Rank != nil {
				dns[i].Latencies = dnstats.Ranked(s.Attempts, s.Rank, time.Millisecond)
			}
		}
		return dnstats.Judge(dnstats.Rows(dns), opts).Lines()
	}
	return c
}

// millis is a time in ms as a Duration.
func millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// addrs are the addresses of the DataNodes of the test's k6/x/dnecho root, by uuid and mode;
// nil before the script imports it.
func (d *runDataNodes) addrs() func(string, echo.Mode) string {
	root := d.root.Load()
	if root == nil {
		return nil
	}
	return root.Addrs()
}
