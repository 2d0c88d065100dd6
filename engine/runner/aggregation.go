package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/stream"
	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/threshold"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// DefaultVerdictTimeout bounds how long an instance waits for the whole test's verdict after
// its own end: the other instances may still be finishing their graceful stops and teardown.
const DefaultVerdictTimeout = 10 * time.Minute

// beginAggregation introduces the instance to the aggregator and streams its samples there.
func (t *testRun) beginAggregation(ctx context.Context) error {
	agg := t.cfg.Aggregation
	if agg == nil {
		return nil
	}
	h := wire.Hello{Instance: instanceName(t.opts.Tags), Segment: "0:1", Sequence: "0,1", API: t.cfg.APIAddress,
		SummaryTrendStats: t.opts.SummaryTrendStats, SummaryTimeUnit: t.opts.SummaryTimeUnit.V}
	if et := t.opts.Tuple; et != nil {
		h.Segment, h.Sequence = et.Segment.String(), et.Sequence.String()
	}
	for _, m := range t.reg.All() {
		h.Metrics = append(h.Metrics, wire.MetricDef{Name: m.Name, Type: m.Type.String(), Contains: m.Contains.String()})
	}
	if len(t.opts.Thresholds) > 0 && !t.opts.NoThresholds.V {
		b, err := json.Marshal(t.opts.Thresholds)
		if err != nil {
			return err
		}
		h.Thresholds = b
	}
	progress := func() stream.Progress {
		in := t.sched.InstanceStats()
		return stream.Progress{Elapsed: in.CurrentTestRunDuration, VUs: in.VUsActive, VUsMax: in.VUsInitialized}
	}
	if err := agg.Begin(ctx, h, progress, t.control.holding); err != nil {
		return withCode(exitcode.Failure, err)
	}
	t.collector.AddOutput(agg)
	t.log.Info(fmt.Sprintf("streaming to the aggregator %s as instance %s, segment %s of %s", agg.Addr(), h.Instance, h.Segment, h.Sequence))
	return nil
}

// instanceName is the instance_id run tag k6-operator gives each runner, else the host name.
func instanceName(tags map[string]string) string {
	if id := tags["instance_id"]; id != "" {
		return id
	}
	host, _ := os.Hostname()
	return host
}

// aggregateVerdict hands the run's outcome to the aggregator and returns the error that decides
// the exit code: the whole test's thresholds replace this instance's own, so a threshold crossed
// only by all instances together fails every one of them (exit 99), and a run the aggregator
// stopped for an abortOnFail threshold ends with 99 rather than 103. Without a verdict (the
// aggregator is gone) the instance falls back on its own thresholds' verdict, local.
func (t *testRun) aggregateVerdict(runErr, local error) error {
	f := wire.Final{ExitCode: ExitCode(runErr), DurationNs: int64(t.duration())}
	if runErr != nil {
		f.Error = runErr.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultVerdictTimeout)
	defer cancel()
	v, err := t.cfg.Aggregation.Finish(ctx, f)
	if err != nil {
		t.log.Error(err.Error() + "; the verdict is this instance's own")
		if runErr == nil {
			return local
		}
		return runErr
	}
	if len(v.Lost) > 0 {
		t.log.Warn("the whole test lost instance(s) " + strings.Join(v.Lost, ", ") + ": its results miss their share")
	}
	if len(v.Failed) == 0 {
		return runErr
	}
	thErr := &threshold.FailedError{Metrics: v.Failed, Aborted: v.Aborted}
	t.log.Error(thErr.Error() + " (on the whole test)")
	if runErr == nil || (v.Aborted && errors.Is(runErr, ErrStoppedFromAPI)) {
		return thErr
	}
	return runErr
}
