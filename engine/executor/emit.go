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

// emitGauges pushes vus and vus_max every second while the scenarios run, like k6's ticker. There
// is no sample at the start (no VU is active yet) nor after the end (every VU has been released):
// those would make the gauges' last value and minimum 0 whatever the load was.
func (s *Scheduler) emitGauges(done <-chan struct{}) {
	t := time.NewTicker(gaugeInterval)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			s.pushGauges(now)
		case <-done:
			return
		}
	}
}

func (s *Scheduler) pushGauges(now time.Time) {
	tags := s.opts.RunTags
	s.opts.Samples.PushSamples([]metrics.Sample{
		{Metric: s.m.vus, Time: now, Value: float64(s.active.Load()), Tags: tags},
		{Metric: s.m.vusMax, Time: now, Value: float64(s.pool.initialized.Load()), Tags: tags},
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
