package freon

import (
	"slices"
	"strings"
	"time"

	"github.com/dnecho/dnecho/internal/quantile"
)

// ServerStats summarise the tasks of one server (Outcome.Server, or the parts of Outcome.Parts): for
// dn-echo, the attempts that went to one DataNode. Latencies are in nanoseconds, as in
// LatencyStats, with Dropwizard's percentile rule; they are the tasks' own Outcome.Latency, or
// the parts' own.
type ServerStats struct {
	Server string
	// Count counts the server's timed tasks and parts, failed ones included; Failures the failed
	// ones.
	Count, Failures int64
	Median, P99     float64
	Max             int64
	// Exact is false when the server recorded more than serverExactCap latencies, so that its
	// percentiles come from an HDR histogram (3 significant digits).
	Exact bool
	// Latencies are the server's latencies, for readers that need more than Median and P99.
	Latencies Latencies
}

// Latencies are a server's latencies (ns), read as the report reads its own: Dropwizard's
// percentile rule.
type Latencies struct{ u *quantile.Union }

// Count is the number of latencies.
func (l Latencies) Count() int64 { return l.u.Count() }

// Rank is the r-th smallest latency (1-based, 1..Count).
func (l Latencies) Rank(r int64) float64 { return l.u.Rank(r) }

// Percentile is the p-th percentile (0 to 100) by Dropwizard's rule, as Median and P99 are.
func (l Latencies) Percentile(p float64) float64 {
	return uniformQuantile(p/100, l.u.Count(), l.u.Rank)
}

// serverExactCap is how many latencies a server keeps exactly over all workers (8 bytes each, so
// 8 MiB per server) before its percentiles come from a histogram: a per-server p50 or p99 needs no
// more.
const serverExactCap = 1 << 20

// workerServers keeps the latencies one worker timed, per server, beside its recorder and
// like it written by that worker alone: no lock on the hot path (stores shared by all workers
// behind sharded locks cost 0.5–0.8 µs of a 4.5 µs reused-stream call at 32 threads,
// BENCHMARKS.md). Workers record only tasks that were not interrupted, as the runner counts them.
type workerServers struct {
	limit  int // exact latencies this worker keeps per server
	byName map[string]*serverData
	// last is the server of the worker's previous task: a worker often calls the same DataNode
	// again, whose uuid string is then the same one, so the comparison is a pointer's.
	lastName string
	last     *serverData
}

type serverData struct {
	lat      *quantile.Store // ns
	failures int64
}

func (w *workerServers) add(name string, latency time.Duration, failed bool) {
	d := w.last
	if d == nil || name != w.lastName {
		if d = w.byName[name]; d == nil {
			if w.byName == nil {
				w.byName = map[string]*serverData{}
			}
			d = &serverData{lat: quantile.New(w.limit, 1)}
			w.byName[name] = d
		}
		w.lastName, w.last = name, d
	}
	d.lat.Add(float64(latency))
	if failed {
		d.failures++
	}
}

// serverLimit is each of workers' exact share of serverExactCap.
func serverLimit(workers int) int {
	return max(1, serverExactCap/workers)
}

// mergeServers merges the workers' per-server latencies once they have stopped; nil without
// servers. The servers are sorted by name.
func mergeServers(recs []*recorder) []ServerStats {
	stores := map[string][]*quantile.Store{}
	failures := map[string]int64{}
	for _, r := range recs {
		for name, d := range r.servers.byName {
			stores[name] = append(stores[name], d.lat)
			failures[name] += d.failures
		}
	}
	var out []ServerStats
	for name, ss := range stores {
		u := quantile.Merge(ss...)
		out = append(out, ServerStats{
			Server: name, Count: u.Count(), Failures: failures[name],
			Median: uniformQuantile(0.5, u.Count(), u.Rank),
			P99:    uniformQuantile(0.99, u.Count(), u.Rank),
			Max:    int64(u.Max()), Exact: u.Exact(), Latencies: Latencies{u},
		})
	}
	slices.SortFunc(out, func(a, b ServerStats) int { return strings.Compare(a.Server, b.Server) })
	return out
}
