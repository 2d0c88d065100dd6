package main

import (
	"strings"
	"sync"
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

// freonDataNodes gathers dn-echo's per-DataNode figures: the session's network watch while the
// run goes, the address of each DataNode a call reached, and at the end freon's per-group
// latencies (a call's group is its DataNode's uuid), which dnstats turns into the per-DataNode
// block and the slow-DataNode verdict after the report.
type freonDataNodes struct {
	opts  dnstats.Options
	net   dnstats.Network
	addrs sync.Map // uuid → address, from the calls (the watch has them too, where TCP_INFO is read)
	stop  func()
}

// watchDataNodes starts the session's network watch, whose ticks also go to the -o outputs
// (outs may be nil); the appendix stops it, or stop when the run could not start.
func watchDataNodes(sess *echo.Session, opts dnstats.Options, outs *freonOutputs) *freonDataNodes {
	d := &freonDataNodes{opts: opts}
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
	out := freon.Outcome{Latency: r.Latency, Err: r.Err, Label: r.Label, Interrupted: r.Interrupted, Group: d.group(r.DataNode)}
	if len(r.Earlier) > 0 {
		out.Parts = make([]freon.Part, 0, len(r.Earlier)+1)
		for _, a := range r.Earlier {
			out.Parts = append(out.Parts, freon.Part{Group: d.group(a.DataNode), Latency: a.Latency, Failed: true})
		}
		out.Parts = append(out.Parts, freon.Part{Group: out.Group, Latency: r.LastLatency(), Failed: r.Err != nil})
	}
	return out
}

// group is the group of an attempt to dn: its uuid ("" when no DataNode was reached).
func (d *freonDataNodes) group(dn datanode.DataNode) string {
	if dn.UUID == "" {
		return ""
	}
	if _, ok := d.addrs.Load(dn.UUID); !ok {
		d.addrs.Store(dn.UUID, dn.Addr)
	}
	return dn.UUID
}

// appendix is the generator's Appendix: the per-DataNode block, then the verdict when it has
// something to say, each one entry.
func (d *freonDataNodes) appendix(res *freon.Result) []string {
	d.stop()
	dns := d.dataNodes(res)
	if len(dns) == 0 {
		return nil
	}
	out := []string{strings.Join(dnstats.Block(dns), "\n")}
	if lines := dnstats.Judge(dns, d.opts).Lines(); lines != nil {
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// text is the appendix as the report text of the web dashboard's export shows it.
func (d *freonDataNodes) text(res *freon.Result) string {
	entries := d.appendix(res)
	if len(entries) == 0 {
		return ""
	}
	return "\n" + strings.Join(entries, "\n") + "\n"
}

// dataNodes are the per-DataNode figures of the run, in uuid order.
func (d *freonDataNodes) dataNodes(res *freon.Result) []dnstats.DataNode {
	var dns []dnstats.DataNode
	for _, g := range res.Groups {
		dn := dnstats.DataNode{UUID: g.Group, Attempts: g.Count, Failed: g.Failures, P50: time.Duration(g.Median), P99: time.Duration(g.P99),
			Latencies: dnstats.Ranked(g.Count, g.Latencies.Rank, time.Nanosecond)}
		if a, ok := d.addrs.Load(g.Group); ok {
			dn.Addr = a.(string)
		}
		dns = append(dns, dn)
	}
	return d.net.Fill(dns)
}

// addr is the address of the DataNode uuid as the calls reached it: one session, one mode.
func (d *freonDataNodes) addr(uuid string, _ echo.Mode) string {
	a, _ := d.addrs.Load(uuid)
	s, _ := a.(string)
	return s
}
