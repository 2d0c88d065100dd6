package metrics

// The fast lane. Most runs have no consumer of individual samples: thresholds, the end-of-test
// summary and the aggregator's instances only read aggregates. A producer (a VU) then folds its
// samples into one Delta per series in its own goroutine and hands the deltas over once per
// flush interval, instead of handing every sample to the collector under its lock. Deltas merge
// with exactly the effect of adding their samples (Sink.MergeDelta), so every aggregate, and so
// every threshold and summary figure, is the one the samples would have given.

// SeriesDelta is what one series (a metric and a tag set) gained over an interval.
type SeriesDelta struct {
	Metric *Metric
	Tags   *Tags
	Delta  Delta
}

// DeltaPusher is a Pusher that also takes deltas. FoldSamples reports whether a producer may
// fold its samples (Fold) and push the deltas instead: true while nothing downstream needs the
// samples themselves. Its answer can change until samples flow (outputs are added before the
// run), so a producer asks at each hand-over. PushDeltas may rewrite the deltas' Tags (dropping
// disabled system tags) but must not keep ds after it returns.
type DeltaPusher interface {
	Pusher
	FoldSamples() bool
	PushDeltas(ds []SeriesDelta)
}

// maxFoldScan is how many series Fold.find compares by pointer before hashing: a VU's iteration
// interleaves a handful of series, and comparing a few pointer pairs is cheaper than hashing.
const maxFoldScan = 16

// Fold accumulates one producer's samples as a Delta per series between two Drains. A series is
// its metric and tag-set pointer (tag sets are immutable and shared, so one set is one pointer in
// practice; two equal sets are merged by the receiver). It is not safe for concurrent use.
type Fold struct {
	order []*foldSeries
	byKey map[foldKey]*foldSeries // beyond the first maxFoldScan series
	out   []SeriesDelta           // Drain's, reused
	from  []*foldSeries           // the series of out's deltas
	next  int                     // the index after the series found last
}

type foldKey struct {
	m    *Metric
	tags *Tags
}

type foldSeries struct {
	key  foldKey
	sink *DeltaSink
}

// Add folds s in; a sample without a metric (an unused reserved slot) is skipped, and a
// non-finite value is ignored as sinks ignore it.
func (f *Fold) Add(s *Sample) {
	if s.Metric == nil {
		return
	}
	f.find(foldKey{s.Metric, s.Tags}).sink.add(s)
}

// find returns k's series. Iterations emit their series in the same order every time, so the
// series after the last one found is tried first.
func (f *Fold) find(k foldKey) *foldSeries {
	if f.next < len(f.order) && f.order[f.next].key == k {
		f.next++
		return f.order[f.next-1]
	}
	for i, fs := range f.order[:min(len(f.order), maxFoldScan)] {
		if fs.key == k {
			f.next = i + 1
			return fs
		}
	}
	if fs := f.byKey[k]; fs != nil {
		return fs
	}
	fs := &foldSeries{key: k, sink: NewDeltaSink(k.m)}
	if len(f.order) >= maxFoldScan {
		if f.byKey == nil {
			f.byKey = map[foldKey]*foldSeries{}
		}
		f.byKey[k] = fs
	}
	f.order = append(f.order, fs)
	return fs
}

// Len is the number of series held: at most maxFoldScan right after a Drain.
func (f *Fold) Len() int { return len(f.order) }

// Drain pushes the deltas gathered since the last Drain to p in one call. It keeps the first
// maxFoldScan series for the next interval and forgets the others, so a producer that makes a
// new tag set per sample does not grow the fold beyond one interval's series.
func (f *Fold) Drain(p DeltaPusher) {
	f.out = f.out[:0]
	f.from = f.from[:0]
	for _, fs := range f.order {
		if !fs.sink.Empty() {
			f.out = append(f.out, SeriesDelta{Metric: fs.key.m, Tags: fs.key.tags, Delta: fs.sink.Take()})
			f.from = append(f.from, fs)
		}
	}
	if len(f.order) > maxFoldScan {
		clear(f.order[maxFoldScan:])
		f.order = f.order[:maxFoldScan]
		clear(f.byKey)
	}
	if len(f.out) == 0 {
		return
	}
	p.PushDeltas(f.out)
	// p did not keep the deltas: their trend values' slices hold the next ones.
	for i, fs := range f.from {
		if ex := f.out[i].Delta.Trend.Exact; ex != nil && fs.sink.trend != nil {
			fs.sink.trend.Reuse(ex)
		}
	}
	clear(f.out)
	clear(f.from)
}
