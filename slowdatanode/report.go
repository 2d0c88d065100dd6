package slowdatanode

import (
	"strings"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/ozone/echo"
)

// Report is the per-DataNode block and the slow-DataNode verdict as every front end shows them,
// made the same way from whichever figures it keeps: freon's appendix after its report
// (Appendix), the summary sections and the dnecho_slow_datanodes gauge of `dnecho run` and
// `dnecho aggregate` (EndOfTest, DuringTest: runner.Config's and aggregate.Options' hooks), and
// the web dashboard's card (Charts).
type Report struct {
	Options Options
	// Addrs, when set, returns the addresses of the run's DataNodes by uuid and mode, which no
	// sample carries, as they are when it is called; nil: none known (`dnecho aggregate`).
	Addrs func() func(uuid string, mode echo.Mode) string
}

// judge makes rows the block's figures, with the known addresses, and judges them.
func (r Report) judge(rows []Row) ([]DataNode, Verdict) {
	var addr func(string, echo.Mode) string
	if r.Addrs != nil {
		addr = r.Addrs()
	}
	dns := DataNodes(rows, addr)
	return dns, Judge(dns, r.Options)
}

// Appendix is freon's appendix: the per-DataNode block, then the verdict when it has something
// to say, each one entry; nil without rows.
func (r Report) Appendix(rows []Row) []string {
	dns, v := r.judge(rows)
	if len(dns) == 0 {
		return nil
	}
	out := []string{strings.Join(Block(dns), "\n")}
	if lines := v.Lines(); lines != nil {
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// DuringTest is the hook the runner and the aggregator call every threshold period with the
// breakdowns so far (Breakdowns): it sets dnecho_slow_datanodes, changed or not (outputs chart
// it as a line; a threshold judges its latest value), so that an abortOnFail threshold on it
// stops the test as soon as a DataNode is slow.
func (r Report) DuringTest(view ingest.View) {
	_, v := r.judge(FromSnapshot(view.Snapshot))
	setSlowGauge(view, len(v.Slow))
}

// EndOfTest is the hook the runner and the aggregator call once the test is over: it sets
// dnecho_slow_datanodes and returns the summary's sections, the per-DataNode table and the
// verdict when it has something to say (none without DataNodes).
func (r Report) EndOfTest(view ingest.View) []summary.Section {
	dns, v := r.judge(FromSnapshot(view.Snapshot))
	setSlowGauge(view, len(v.Slow))
	if len(dns) == 0 {
		return nil
	}
	out := []summary.Section{{Title: "per DataNode", Lines: append([]string{Legend}, Table(dns)...)}}
	if lines := v.Lines(); lines != nil {
		out = append(out, summary.Section{Title: "slow DataNodes", Lines: lines})
	}
	return out
}

// setSlowGauge pushes one sample of dnecho_slow_datanodes, when the test registered it (a script
// that imports k6/x/dnecho).
func setSlowGauge(view ingest.View, slow int) {
	if m := view.Registry.Get(echometrics.SlowDataNodes); m != nil {
		view.Push.PushSamples([]metrics.Sample{{Metric: m, Time: view.Time, Value: float64(slow), Tags: view.Tags}})
	}
}

// Charts are what the web dashboard charts for the dnecho metrics: echometrics.Charts, the
// network RTT and retransmits per DataNode for its "Network vs DataNode" chart and table, short
// uuids in its legends, and its card's live verdict (Card).
func (r Report) Charts() output.Charts {
	c := echometrics.Charts
	c.Network, c.Retransmits, c.Short, c.Judge = echometrics.TCPRTT, echometrics.TCPRetransmits, ShortUUID, r.Card
	return c
}

// Card is the dashboard's live verdict (output.Charts.Judge), judged as the end of the test
// judges, from the figures the dashboard aggregates.
func (r Report) Card(servers []output.Server) []string {
	rows := make([]Row, len(servers))
	for i, s := range servers {
		rows[i] = Row{UUID: s.Name, Mode: s.Mode, Attempts: sink(s.Latency), Failed: s.Failed, RTT: sink(s.Network),
			Retransmits: uint64(s.Retransmits), Unit: time.Millisecond}
	}
	_, v := r.judge(rows)
	return v.Lines()
}

// sink is t as a Distribution; nil without one.
func sink(t *metrics.TrendSink) Distribution {
	if t == nil {
		return nil
	}
	return t
}
