// Package slowdatanode is the per-DataNode block and the slow-DataNode verdict
// (docs/slow-datanode.md) of every front end: the figures of each DataNode (and mode) — the
// latency percentiles of the attempts that went to it and the kernel's view of the connections
// to it (smoothed RTT, retransmits) —, the rule that names the slow ones, and Report, which gives
// freon its appendix, `dnecho run` and `dnecho aggregate` their summary sections and
// dnecho_slow_datanodes gauge, and the web dashboard its card. It measures nothing and has no
// clock: freon's per-group recorders, the engine's per-DataNode breakdowns, the dashboard's sinks
// and the session's network watch (ozone/echo WatchNetwork) feed it, each as Rows.
package slowdatanode

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DataNode is what the attempts that went to one DataNode, by one mode, and the connections to
// it came to over a run: one row of the block.
type DataNode struct {
	// UUID identifies the DataNode; Addr is the address dialled ("" when unknown).
	UUID, Addr string
	// Mode is the mode of the attempts (grpc, ratis-read, ratis-write: the transport, and the
	// port of Addr) when the run used more than one; "" otherwise.
	Mode string
	// Attempts counts the attempts that went to the DataNode: a call of one attempt is one, a
	// call retried on other DataNodes counts one for each DataNode tried. Failed counts those
	// that failed (every attempt but the last of a retried call did).
	Attempts, Failed int64
	// P50 and P99 are the percentiles of the attempts' own latencies: a call's latency when it
	// made one attempt; with retries, the part of it each attempt took (echo.Result.Earlier).
	P50, P99 time.Duration
	// Latencies are those latencies, for the verdict's tail test; nil: its p99 cannot make it
	// slow.
	Latencies Latencies
	// RTT is the p50 of the sampled smoothed round-trip times (tcpi_rtt) of the connections to
	// the DataNode; HasRTT is false when none was sampled (TCP_INFO unreadable on this OS, or no
	// connection was open at any tick).
	RTT    time.Duration
	HasRTT bool
	// Retransmits counts the TCP segments the kernel retransmitted to the DataNode.
	Retransmits uint64
}

// DataNodeTime is the part of the echo p50 the network round trip does not explain: P50 − RTT,
// never negative (the two are medians of different samples, so a DataNode that answers at once
// can show an RTT above its echo p50). It is only meaningful with HasRTT.
func (d DataNode) DataNodeTime() time.Duration {
	return max(0, d.P50-d.RTT)
}

// Name is the DataNode as the block and the verdict show it: the short uuid and the address,
// or the whole uuid when the address is unknown (`dnecho aggregate`, whose samples carry only
// the uuid): four characters alone may not tell DataNodes apart or find one in Ozone. The mode
// follows, when the row has one.
func (d DataNode) Name() string {
	where := d.Addr
	if d.Mode != "" {
		where = strings.TrimPrefix(where+", "+d.Mode, ", ")
	}
	switch {
	case d.Addr == "" && where == "":
		return d.UUID
	case d.Addr == "":
		return d.UUID + " (" + where + ")"
	}
	return ShortUUID(d.UUID) + " (" + where + ")"
}

// oneMode drops the rows' mode when every row has the same one: it then tells them nothing.
func oneMode(dns []DataNode) []DataNode {
	for _, d := range dns {
		if d.Mode != dns[0].Mode {
			return dns
		}
	}
	for i := range dns {
		dns[i].Mode = ""
	}
	return dns
}

// shortUUIDLen is how much of a uuid the lines show; the address beside it tells DataNodes apart.
const shortUUIDLen = 4

// ShortUUID is the first characters of a uuid followed by "…", or the whole uuid when short.
func ShortUUID(uuid string) string {
	if len(uuid) <= shortUUIDLen {
		return uuid
	}
	return uuid[:shortUUIDLen] + "…"
}

// Millis formats d in milliseconds: three significant digits from 1 ms ("12.3", "2.1"), at most
// three decimals below ("0.212", "0.08"), whole milliseconds from 100 ms on.
func Millis(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strings.TrimRight(strconv.FormatFloat(v, 'f', 3, 64), "0")
	if s == "0." {
		return "0"
	}
	return strings.TrimSuffix(s, ".")
}

// Legend says what the table's columns mean.
const Legend = "latency of each attempt in ms; RTT: p50 of the kernel's smoothed TCP RTT; DataNode time: echo p50 - RTT p50, never negative"

// BlockTitle is the first line of the per-DataNode block.
const BlockTitle = "Per DataNode (" + Legend + "):"

// Block is the per-DataNode block: BlockTitle, then the Table; nil without DataNodes.
func Block(dns []DataNode) []string {
	if len(dns) == 0 {
		return nil
	}
	return append([]string{BlockTitle}, Table(dns)...)
}

// Table is the per-DataNode table, a header and one row per DataNode in the given order, indented
// by two; nil without DataNodes. A DataNode without network figures shows "-" for RTT and
// DataNode time; one without an address shows "-" for it and its whole uuid (as Name). The mode
// column is there when a row has a mode.
func Table(dns []DataNode) []string {
	if len(dns) == 0 {
		return nil
	}
	modes := slices.ContainsFunc(dns, func(d DataNode) bool { return d.Mode != "" })
	rows := [][]string{withMode(modes, []string{"datanode", "address", "attempts", "failed", "p50", "p99", "RTT p50", "DataNode time", "retransmits"}, "mode")}
	for _, d := range dns {
		rtt, dnTime := "-", "-"
		if d.HasRTT {
			rtt, dnTime = Millis(d.RTT), Millis(d.DataNodeTime())
		}
		uuid, addr := ShortUUID(d.UUID), d.Addr
		if addr == "" {
			uuid, addr = d.UUID, "-"
		}
		rows = append(rows, withMode(modes, []string{uuid, addr, strconv.FormatInt(d.Attempts, 10), strconv.FormatInt(d.Failed, 10),
			Millis(d.P50), Millis(d.P99), rtt, dnTime, strconv.FormatUint(d.Retransmits, 10)}, d.Mode))
	}
	left := 2
	if modes {
		left = 3
	}
	return table(rows, left)
}

// withMode puts mode after the row's first column when the table has the mode column.
func withMode(modes bool, row []string, mode string) []string {
	if !modes {
		return row
	}
	return slices.Insert(row, 1, mode)
}

// table aligns rows in columns two spaces apart, indented by two: the first left columns
// left-aligned, the others (numbers) right-aligned.
func table(rows [][]string, left int) []string {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		b.WriteString(" ")
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			b.WriteString(" ")
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
			if i < len(r)-1 {
				b.WriteString(" ")
			}
		}
		out[j] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// errorf is fmt.Errorf under this package's prefix.
func errorf(format string, a ...any) error { return fmt.Errorf("slowdatanode: "+format, a...) }
