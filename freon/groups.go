package freon

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/dnecho/dnecho/internal/quantile"
)

// GroupStats summarise the tasks of one group (Outcome.Group): for dn-echo, the calls one
// DataNode answered. Latencies are in nanoseconds, as in LatencyStats, with Dropwizard's
// percentile rule; they are the tasks' own Outcome.Latency.
type GroupStats struct {
	Group string
	// Count counts the group's timed tasks, failed ones included; Failures the failed ones.
	Count, Failures int64
	Median, P99     float64
	Max             int64
	// Exact is false when the group recorded more than groupExactCap latencies, so that its
	// percentiles come from an HDR histogram (3 significant digits).
	Exact bool
}

// groupShards spreads the groups' stores over locks by task id: consecutive tasks (the attempt
// counter) come from different workers, so workers rarely wait on each other, while the number
// of histograms a long run can grow to stays groupShards per group, however many threads run.
const groupShards = 16

// groupExactCap is how many latencies a group keeps exactly (8 bytes each, so 8 MiB per group)
// before its percentiles come from a histogram: a per-group p50 or p99 needs no more.
const groupExactCap = 1 << 20

// groupRecorder keeps the latency of each task group. It sits outside the runner, as a wrapper
// of the task, so that both loops record groups alike; a task is counted unless it was
// interrupted, as the runner counts it.
type groupRecorder struct {
	shards [groupShards]groupShard
}

type groupShard struct {
	mu     sync.Mutex
	groups map[string]*groupData
	_      [40]byte // keep neighbouring shards' locks off one cache line
}

type groupData struct {
	lat      *quantile.Store // ns
	failures int64
}

// wrap returns task recording each outcome's group.
func (g *groupRecorder) wrap(task Task) Task {
	return func(ctx context.Context, taskID int) Outcome {
		out := task(ctx, taskID)
		if out.Group != "" && (out.Err == nil || !out.Interrupted && ctx.Err() == nil) {
			g.record(taskID, out)
		}
		return out
	}
}

func (g *groupRecorder) record(taskID int, out Outcome) {
	s := &g.shards[uint(taskID)%groupShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[string]*groupData{}
	}
	d := s.groups[out.Group]
	if d == nil {
		d = &groupData{lat: quantile.New(groupExactCap/groupShards, 1)}
		s.groups[out.Group] = d
	}
	d.lat.Add(float64(out.Latency))
	if out.Err != nil {
		d.failures++
	}
}

// stats merges the shards once the workers have stopped; nil without groups. The groups are
// sorted by name.
func (g *groupRecorder) stats() []GroupStats {
	stores := map[string][]*quantile.Store{}
	failures := map[string]int64{}
	for i := range g.shards {
		for name, d := range g.shards[i].groups {
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
			Max:    int64(u.Max()), Exact: u.Exact(),
		})
	}
	slices.SortFunc(out, func(a, b GroupStats) int { return strings.Compare(a.Group, b.Group) })
	return out
}
