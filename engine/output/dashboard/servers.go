package dashboard

import (
	"slices"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// servers are the whole test's figures per value of Charts.Breakdown (per DataNode): what the
// per-server table shows and Charts.Judge judges. The sinks are the summary's kind, so a row's
// percentiles are those of the end-of-test breakdown.
type servers map[string]*serverSinks

type serverSinks struct {
	latency, network *metrics.TrendSink
	retransmits      float64
}

func (ss servers) get(name string) *serverSinks {
	s := ss[name]
	if s == nil {
		s = &serverSinks{latency: metrics.NewTrendSink(metrics.Time), network: metrics.NewTrendSink(metrics.Time)}
		ss[name] = s
	}
	return s
}

// addNetwork folds a sample of Charts.Network or Charts.Retransmits: the first into its period's
// split and the server's RTT, the second into the server's retransmits. A sample without the
// Breakdown tag is not about one server and is left out.
func (c *collector) addNetwork(w *window, s *metrics.Sample) {
	v, ok := c.tag(s, c.charts.Breakdown)
	if !ok {
		return
	}
	if s.Metric.Name == c.charts.Network {
		w.netOf(v).add(s.Value)
		c.servers.get(v).network.Add(*s)
		return
	}
	c.servers.get(v).retransmits += s.Value
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
	Label       string   `json:"label"` // Charts.Short of it
	Calls       int64    `json:"calls"`
	P50         *float64 `json:"p50"`
	P99         *float64 `json:"p99"`
	Network     *float64 `json:"rtt"`  // p50 of Charts.Network
	Rest        *float64 `json:"rest"` // P50 − Network, never negative
	Retransmits float64  `json:"retrans"`
}

// serverTable returns the per-server rows in name order and Charts.Judge's lines about them
// (nil without a Judge or without servers).
func (c *collector) serverTable() ([]ServerRow, []string) {
	names := make([]string, 0, len(c.servers))
	for k := range c.servers {
		names = append(names, k)
	}
	slices.Sort(names)
	rows := make([]ServerRow, 0, len(names))
	figs := make([]output.Server, 0, len(names))
	for _, k := range names {
		s := c.servers[k]
		f := output.Server{Name: k, Calls: s.latency.Count(), Retransmits: s.retransmits}
		row := ServerRow{Name: k, Label: c.label(k), Calls: f.Calls, Retransmits: f.Retransmits}
		if f.Calls > 0 {
			f.P50, f.P99, f.Rank = s.latency.Percentile(50), s.latency.Percentile(99), s.latency.Rank
			row.P50, row.P99 = ptr(f.P50), ptr(f.P99)
		}
		if s.network.Count() > 0 {
			f.Network, f.HasNetwork = s.network.Percentile(50), true
			row.Network = ptr(f.Network)
			if f.Calls > 0 {
				row.Rest = ptr(max(0, f.P50-f.Network))
			}
		}
		rows, figs = append(rows, row), append(figs, f)
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
