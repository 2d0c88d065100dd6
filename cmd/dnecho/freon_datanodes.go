package main

import (
	"strings"
	"sync"
	"time"

	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/slowdatanode"
)

// freonDataNodes wires dn-echo's per-DataNode block and verdict (slowdatanode.Report): the
// session's network watch while the run goes, the address of each DataNode a call reached, and
// at the end freon's per-group latencies (a call's group is its DataNode's uuid; a retried
// call's attempts each go to their own DataNode's group), the report's rows.
type freonDataNodes struct {
	report slowdatanode.Report
	net    slowdatanode.Network
	addrs  sync.Map // uuid → address, from the calls (the watch has them too, where TCP_INFO is read)
	stop   func()
}

// watchDataNodes starts the session's network watch, whose ticks also go to the -o outputs
// (outs may be nil); the appendix stops it, or stop when the run could not start.
func watchDataNodes(sess *echo.Session, opts slowdatanode.Options, outs *freonOutputs) *freonDataNodes {
	d := &freonDataNodes{}
	d.report = slowdatanode.Report{Options: opts, Addrs: func() func(string, echo.Mode) string { return d.addr }}
	d.stop = sess.WatchNetwork(echo.DefaultNetworkInterval, func(tick []echo.NetworkSample) {
		d.net.Add(tick)
		outs.recordNetwork(tick)
	})
	return d
}

// outcome is the call's freon.Outcome: its latency for the report, and for the per-DataNode
// figures its DataNode's uuid (its group), or with retries each attempt's own part at the
// DataNode it went to.
func (d *freonDataNodes) outcome(r *echo.Result) freon.Outcome {
	out := freon.Outcome{Latency: r.Latency, Err: r.Err, Label: r.Label, Interrupted: r.Interrupted, Server: d.server(r.DataNode)}
	if len(r.Earlier) > 0 {
		out.Parts = make([]freon.Part, 0, len(r.Earlier)+1)
		for _, a := range r.Earlier {
			out.Parts = append(out.Parts, freon.Part{Server: d.server(a.DataNode), Latency: a.Latency, Failed: true})
		}
		out.Parts = append(out.Parts, freon.Part{Server: out.Server, Latency: r.LastLatency(), Failed: r.Err != nil})
	}
	return out
}

// server is the server freon books an attempt to dn under: its uuid ("" when no DataNode was reached).
func (d *freonDataNodes) server(dn datanode.DataNode) string {
	if dn.UUID == "" {
		return ""
	}
	if _, ok := d.addrs.Load(dn.UUID); !ok {
		d.addrs.Store(dn.UUID, dn.Addr)
	}
	return dn.UUID
}

// appendix is the generator's Appendix: the report's, from the run's per-server figures.
func (d *freonDataNodes) appendix(res *freon.Report) []string {
	d.stop()
	var rows []slowdatanode.Row
	for _, g := range res.Servers {
		rows = append(rows, slowdatanode.Row{UUID: g.Server, Attempts: g.Latencies, Failed: g.Failures, Unit: time.Nanosecond})
	}
	return d.report.Appendix(d.net.Fill(rows))
}

// text is the appendix as the report text of the web dashboard's export shows it.
func (d *freonDataNodes) text(res *freon.Report) string {
	entries := d.appendix(res)
	if len(entries) == 0 {
		return ""
	}
	return "\n" + strings.Join(entries, "\n") + "\n"
}

// addr is the address of the DataNode uuid as the calls reached it: one session, one mode.
func (d *freonDataNodes) addr(uuid string, _ echo.Mode) string {
	a, _ := d.addrs.Load(uuid)
	s, _ := a.(string)
	return s
}
