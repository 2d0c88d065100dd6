package freon

import (
	"slices"
	"strings"
	"time"

	"github.com/dnecho/dnecho/internal/quantile"
)

// GroupStats summarise the tasks of one group (Outcome.Group, or the parts of Outcome.Parts): for
// dn-echo, the attempts that went to one DataNode. Latencies are in nanoseconds, as in
// LatencyStats, with Dropwizard's percentile rule; they are the tasks' own Outcome.Latency, or
// the parts' own.
type GroupStats struct {
	Group string
	// Count counts the group's timed tasks and parts, failed ones included; Failures the failed
	// ones.
	Count, Failures int64
	Median, P99     float64
	Max             int64
	// Exact is false when the group recorded more than groupExactCap latencies, so that its
	// percentiles come from an HDR histogram (3 significant digits).
	Exact bool
	// Latencies are the group's latencies, for readers that need more than Median and P99.
	Latencies Latencies
}

// Latencies are a group's latencies (ns), read as the report reads its own: Dropwizard's
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

// groupExactCap is how many latencies a group keeps exactly over all workers (8 bytes each, so
// 8 MiB per group) before its percentiles come from a histogram: a per-group p50 or p99 needs no
// more.
const groupExactCap = 1 << 20

// workerGroups keeps the latencies of each task group one worker timed, beside its recorder and
// like it written by that worker alone: no lock on the hot path (stores shared by all workers
// behind sharded locks cost 0.5–0.8 µs of a 4.5 µs reused-stream call at 32 threads,
// BENCHMARKS.md). Workers record only tasks that were not interrupted, as the runner counts them.
type workerGroups struct {
	limit  int // exact latencies this worker keeps per group
	byName map[string]*groupData
	// last is the group of the worker's previous task: a worker often calls the same DataNode
	// again, whose uuid string is then the same one, so the comparison is a pointer's.
	lastName string
	last     *groupData
}

type groupData struct {
	lat      *quantile.Store // ns
	failures int64
}

func (w *workerGroups) add(name string, latency time.Duration, failed bool) {
	d := w.last
	if d == nil || name != w.lastName {
		if d = w.byName[name]; d == nil {
			if w.byName == nil {
				w.byName = map[string]*groupData{}
			}
			d = &groupData{lat: quantile.New(w.limit, 1)}
			w.byName[name] = d
		}
		w.lastName, w.last = name, d
	}
	d.lat.Add(float64(latency))
	if failed {
		d.failures++
	}
}

// groupLimit is each of workers' exact share of groupExactCap.
func groupLimit(workers int) int {
	return max(1, groupExactCap/workers)
}

// mergeGroups merges the workers' groups once they have stopped; nil without groups. The groups
// are sorted by name.
func mergeGroups(recs []*recorder) []GroupStats {
	stores := map[string][]*quantile.Store{}
	failures := map[string]int64{}
	for _, r := range recs {
		for name, d := range r.groups.byName {
			stores[name] = append(stores[name], d.lat)
			failures[name] += d.failures
		}
	}
	var out []GroupStats
	for name, ss := range stores {
		u := quantile.Merge(ss...)
		out = append(out, GroupStats{
			Group: name, Count: u.Count(), Failures: failures[name],
			Median: uniformQuantile(0.5, u.Count(), u.Rank),
			P99:    uniformQuantile(0.99, u.Count(), u.Rank),
			Max:    int64(u.Max()), Exact: u.Exact(), Latencies: Latencies{u},
		})
	}
	slices.SortFunc(out, func(a, b GroupStats) int { return strings.Compare(a.Group, b.Group) })
	return out
}
