package dashboard

import (
	"cmp"
	"slices"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// servers are the whole test's figures per value of Charts.Breakdown and of Charts.Mode (per
// DataNode and mode): what the per-server table shows and Charts.Judge judges. The sinks are the
// summary's kind, so a row's percentiles are those of the end-of-test breakdown.
type servers map[serverKey]*serverSinks

// serverKey is a Breakdown value and a Mode value.
type serverKey struct{ name, mode string }

type serverSinks struct {
	latency, network *metrics.TrendSink // latency: of the attempts
	failed           int64
	retransmits      float64
}

func (ss servers) get(k serverKey) *serverSinks {
	s := ss[k]
	if s == nil {
		s = &serverSinks{latency: metrics.NewTrendSink(metrics.Time), network: metrics.NewTrendSink(metrics.Time)}
		ss[k] = s
	}
	return s
}

// server is the key of the server s is about; false when s has no Breakdown tag.
func (c *collector) server(s *metrics.Sample) (serverKey, bool) {
	v, ok := c.tag(s, c.charts.Breakdown)
	if !ok {
		return serverKey{}, false
	}
	m, _ := c.tag(s, c.charts.Mode)
	return serverKey{v, m}, true
}

// addAttempt folds a sample of Charts.Latency, or of Charts.Attempt, into its server's attempts:
// a call of one attempt is one, the attempts of a retried call come one by one as Attempt
// samples (its Latency sample, marked Retried, is left out).
func (c *collector) addAttempt(s *metrics.Sample) {
	if _, retried := c.tag(s, c.charts.Retried); retried && s.Metric.Name == c.charts.Latency {
		return
	}
	k, ok := c.server(s)
	if !ok {
		return
	}
	sv := c.servers.get(k)
	sv.latency.Add(*s)
	if r, _ := c.tag(s, c.charts.Result); c.charts.Success != "" && r != c.charts.Success {
		sv.failed++
	}
}

// addNetwork folds a sample of Charts.Network or Charts.Retransmits: the first into its period's
// split and the server's RTT, the second into the server's retransmits. A sample without the
// Breakdown tag is not about one server and is left out.
func (c *collector) addNetwork(w *window, s *metrics.Sample) {
	k, ok := c.server(s)
	if !ok {
		return
	}
	if s.Metric.Name == c.charts.Network {
		w.netOf(k.name).add(s.Value)
		c.servers.get(k).network.Add(*s)
		return
	}
	c.servers.get(k).retransmits += s.Value
}

// Split is one server's period in the network chart (ms): the p50 of Charts.Network and the rest
// of the latency p50 — the time the server itself takes.
type Split struct {
	Network float64  `json:"rtt"`
	Rest    *float64 `json:"rest"` // latency p50 − Network p50, never negative; nil without calls
}

// splits are a closing period's network splits, for the servers with a Network sample in it.
func splits(w *window) map[string]Split {
	if len(w.net) == 0 {
		return nil
	}
	out := make(map[string]Split, len(w.net))
	for k, n := range w.net {
		sp := Split{Network: percentile(n.ranker(), 50)}
		if lat, ok := w.perTag[k]; ok {
			if r := lat.ranker(); r.Count() > 0 {
				sp.Rest = ptr(max(0, percentile(r, 50)-sp.Network))
			}
		}
		out[k] = sp
	}
	return out
}

// ServerRow is one row of the per-server table: the whole test so far (ms).
type ServerRow struct {
	Name        string   `json:"name"`  // the Breakdown value
	Mode        string   `json:"mode"`  // the Mode value
	Label       string   `json:"label"` // Charts.Short of Name, then Mode when the rows have several
	Attempts    int64    `json:"attempts"`
	Failed      int64    `json:"failed"`
	P50         *float64 `json:"p50"`
	P99         *float64 `json:"p99"`
	Network     *float64 `json:"rtt"`  // p50 of Charts.Network
	Rest        *float64 `json:"rest"` // P50 − Network, never negative
	Retransmits float64  `json:"retrans"`
}

// serverTable returns the per-server rows in name order and Charts.Judge's lines about them
// (nil without a Judge or without servers).
func (c *collector) serverTable() ([]ServerRow, []string) {
	keys := make([]serverKey, 0, len(c.servers))
	for k := range c.servers {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b serverKey) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.mode, b.mode))
	})
	// The mode is in the labels when the rows have more than one: alone it tells them nothing.
	mixed := slices.ContainsFunc(keys, func(k serverKey) bool { return k.mode != keys[0].mode })
	rows := make([]ServerRow, 0, len(keys))
	figs := make([]output.Server, 0, len(keys))
	for _, k := range keys {
		s := c.servers[k]
		row := ServerRow{Name: k.name, Mode: k.mode, Label: c.label(k.name), Attempts: s.latency.Count(), Failed: s.failed, Retransmits: s.retransmits}
		if mixed {
			row.Label += " " + k.mode
		}
		if row.Attempts > 0 {
			row.P50, row.P99 = ptr(s.latency.Percentile(50)), ptr(s.latency.Percentile(99))
		}
		if s.network.Count() > 0 {
			row.Network = ptr(s.network.Percentile(50))
			if row.Attempts > 0 {
				row.Rest = ptr(max(0, *row.P50-*row.Network))
			}
		}
		rows = append(rows, row)
		figs = append(figs, output.Server{Name: k.name, Mode: k.mode, Latency: s.latency, Failed: s.failed, Network: s.network, Retransmits: s.retransmits})
	}
	if c.charts.Judge == nil || len(rows) == 0 {
		return rows, nil
	}
	return rows, c.charts.Judge(figs)
}

// label is a Breakdown value as legends show it.
func (c *collector) label(v string) string {
	if c.charts.Short == nil {
		return v
	}
	return c.charts.Short(v)
}
