package slowdatanode

import (
	"math"
	"sort"
	"time"
)

// Latencies are a DataNode's attempt latencies as the verdict's tail test reads them.
type Latencies interface {
	// Above counts the latencies above d.
	Above(d time.Duration) int64
}

// Ranked reads Latencies from a store of count values whose r-th smallest (1-based) is rank(r),
// in unit: freon's per-DataNode stores (ns), a Trend's sink (ms). Above costs O(log count) ranks.
func Ranked(count int64, rank func(int64) float64, unit time.Duration) Latencies {
	return ranked{n: count, rank: rank, unit: unit}
}

type ranked struct {
	n    int64
	rank func(int64) float64
	unit time.Duration
}

func (r ranked) Above(d time.Duration) int64 {
	x := float64(d) / float64(r.unit)
	// atMost is the number of values <= x: the first rank whose value is above x, less one.
	atMost := sort.Search(int(r.n), func(i int) bool { return r.rank(int64(i)+1) > x })
	return r.n - int64(atMost)
}

// tailZ is how many standard errors the share of a DataNode's attempts above the bar must exceed
// the others' share by for its p99 to make it slow (docs/slow-datanode.md): a p99 rests on the
// slowest 1% of the attempts, few enough that a handful of stalls of a loaded client moves it
// across the bar on one DataNode and not on another.
const tailZ = 3.0

// tailShares returns the share of d's attempts above bar and the others' (pooled), and whether d's is
// larger by at least tailZ standard errors (a two-proportion z-test). Without latencies for every
// DataNode it says no.
func tailShares(d DataNode, others []DataNode, bar time.Duration) (mine, theirs float64, slow bool) {
	if d.Latencies == nil || d.Attempts == 0 {
		return 0, 0, false
	}
	aD, nD := d.Latencies.Above(bar), d.Attempts
	var aO, nO int64
	for _, o := range others {
		if o.Latencies == nil {
			return 0, 0, false
		}
		aO, nO = aO+o.Latencies.Above(bar), nO+o.Attempts
	}
	if nO == 0 {
		return 0, 0, false
	}
	mine, theirs = float64(aD)/float64(nD), float64(aO)/float64(nO)
	p := float64(aD+aO) / float64(nD+nO)
	se := math.Sqrt(p * (1 - p) * (1/float64(nD) + 1/float64(nO)))
	return mine, theirs, se > 0 && (mine-theirs)/se >= tailZ
}
