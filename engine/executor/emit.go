package executor

import (
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// gaugeInterval is how often vus and vus_max are sampled (k6 samples them every second).
const gaugeInterval = time.Second

// builtinMetrics are the metrics the scheduler itself emits.
type builtinMetrics struct {
	vus, vusMax, dropped *metrics.Metric
}

func registerBuiltins(r *metrics.Registry) (builtinMetrics, error) {
	var m builtinMetrics
	var err error
	if m.vus, err = r.NewMetric("vus", metrics.Gauge, metrics.Default); err != nil {
		return m, err
	}
	if m.vusMax, err = r.NewMetric("vus_max", metrics.Gauge, metrics.Default); err != nil {
		return m, err
	}
	m.dropped, err = r.NewMetric("dropped_iterations", metrics.Counter, metrics.Default)
	return m, err
}

// The vus and vus_max gauges get one sample at the start of the run, one every second while it
// runs (k6's ticker) and one at its end, so that a run shorter than a second has them too. The
// start sample waits until every scenario that starts with the run has activated its first VUs
// (markStarted); before that no VU is active and the sample would pin the gauge's minimum to 0
// whatever the load. The end sample comes after every VU has been released, so it reports the
// most VUs active since the sample before it (peakActive), not the 0 of a finished run.

// emitGauges pushes the per-second samples until done is closed.
func (s *Scheduler) emitGauges(done <-chan struct{}) {
	t := time.NewTicker(gaugeInterval)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			s.pushGauges(now, false)
		case <-done:
			return
		}
	}
}

// pushGauges pushes vus and vus_max: the active VUs now, or at the end (atEnd) the most that
// were active since the previous sample.
func (s *Scheduler) pushGauges(now time.Time, atEnd bool) {
	s.gaugeMu.Lock()
	vus := s.active.Load()
	if atEnd {
		vus, s.peakActive = s.peakActive, vus
	} else {
		s.peakActive = vus
	}
	s.gaugeMu.Unlock()
	tags := s.opts.RunTags
	s.opts.Samples.PushSamples([]metrics.Sample{
		{Metric: s.m.vus, Time: now, Value: float64(vus), Tags: tags},
		{Metric: s.m.vusMax, Time: now, Value: float64(s.pool.initialized.Load()), Tags: tags},
	})
}

// countActive adds delta to the active VUs and keeps the peak since the last gauge sample.
func (s *Scheduler) countActive(delta int64) {
	n := s.active.Add(delta)
	if delta <= 0 {
		return
	}
	s.gaugeMu.Lock()
	s.peakActive = max(s.peakActive, n)
	s.gaugeMu.Unlock()
}

// markStarted tells the scheduler that this scenario's first VUs are active (or that it ended
// without any); the last scenario that starts with the run to do so pushes the start sample.
// Only the first call counts.
func (sc *scenarioRun) markStarted() {
	sc.startOnce.Do(func() {
		if sc.base.StartOffset() == 0 && sc.s.startsPending.Add(-1) == 0 {
			sc.s.pushGauges(time.Now(), false)
		}
	})
}

// pushDropped emits one dropped_iterations sample (run tags + scenario, + vu when given and the
// `vu` system tag is on).
func (sc *scenarioRun) pushDropped(n int64, vu uint64) {
	if n <= 0 {
		return
	}
	tags := sc.droppedTags
	if vu != 0 && sc.s.opts.VUTag {
		tags = tags.With("vu", strconv.FormatUint(vu, 10))
	}
	sc.s.opts.Samples.PushSamples([]metrics.Sample{
		{Metric: sc.s.m.dropped, Time: time.Now(), Value: float64(n), Tags: tags},
	})
}
