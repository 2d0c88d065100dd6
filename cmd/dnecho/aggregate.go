package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/dashboard"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/ui"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/slowdatanode"
)

// envAggregator is the environment form of `dnecho run --aggregator`, so that a TestRun can set
// it for every runner without touching their arguments.
const envAggregator = "DNECHO_AGGREGATOR"

// envAggregatorToken is the secret shared by the aggregator and its instances (on Kubernetes, a
// Secret both pods read): with it, the aggregator reads nothing else from a connection before
// the token is checked.
const envAggregatorToken = "DNECHO_AGGREGATOR_TOKEN"

// aggregateFlags are the command line of `dnecho aggregate`.
type aggregateFlags struct {
	listen                     string
	instances                  int
	interval, joinTimeout      time.Duration
	summaryExport, summaryData string
	report                     string
	tlsCert, tlsKey            string
	noColor                    bool
	summaryMode                string
	slowFactor                 float64
}

func newAggregateCommand(sig *signals, s streams) *cobra.Command {
	f := &aggregateFlags{}
	cmd := &cobra.Command{
		Use:   "aggregate [--listen HOST:PORT]",
		Short: "Judge a distributed test as one: merge its instances' results and evaluate the thresholds",
		Long: `Listen for the instances of a distributed test ('dnecho run --aggregator HOST:PORT' or
` + envAggregator + `=HOST:PORT, one execution segment each, e.g. the runner pods of a k6-operator TestRun),
merge what they measure as it comes in, and judge the whole test as one:

  - thresholds are evaluated on all instances' samples together, every 2 s during the test;
  - an abortOnFail threshold that fails stops every instance (through its REST API, --address);
  - percentiles are those of a single run on the same samples (HDR histograms merge exactly);
  - at the end every instance gets the verdict (exit 99 everywhere when a threshold failed), and
    this command prints one summary, writes --summary-export, the handleSummary input
    (--summary-data) and an HTML report (--report), and exits with k6's codes;
  - an instance that disappears before its end is reported, with the share it sent;
  - the summary ends with the per-DataNode block and slow-DataNode verdict of 'dnecho run', over
    all instances' calls (DataNodes by uuid: the instances' samples carry no addresses), and
    dnecho_slow_datanodes is the whole test's, set every --threshold-interval and at the end, so
    'value==0' on it fails (or, with abortOnFail, stops) the distributed test (--slow-factor).

The number of instances is that of the segments in their --execution-segment-sequence
(1 without one); --instances overrides it.

Only instances that present the token in ` + envAggregatorToken + ` are admitted when it is set (set the
same value on both sides, e.g. from one Kubernetes Secret); without it, anyone who reaches
--listen can join the test, so the default listens on the loopback interface only.

Exit codes: 0 success, 99 thresholds crossed on the whole test, an instance's own code when it
failed otherwise (103, 105, 107, ...), 105 interrupted, 255 an instance was lost.`,
		Example: `  dnecho aggregate --report report.html
  dnecho run --aggregator 127.0.0.1:6566 --execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1 test.js`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.validate(cmd.Flags().Changed); err != nil {
				return err
			}
			slow, err := slowOptions(cmd, environ(), f.slowFactor)
			if err != nil {
				return err
			}
			return runAggregate(sig, s, f, slowdatanode.Report{Options: slow})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", defaultAggregateListen, "address the instances connect to, host:port; another interface than loopback needs "+envAggregatorToken)
	fl.IntVar(&f.instances, "instances", 0, "instances to expect (default: the segments of their sequence)")
	fl.DurationVar(&f.interval, "threshold-interval", aggregate.DefaultInterval, "how often thresholds are evaluated during the test")
	fl.DurationVar(&f.joinTimeout, "join-timeout", aggregate.DefaultJoinTimeout, "how long instances may take to join after the first")
	fl.StringVar(&f.summaryExport, "summary-export", "", "write the whole test's summary as JSON to FILE (k6's --summary-export)")
	fl.StringVar(&f.summaryData, "summary-data", "", "write the whole test's handleSummary input (k6's data object) to FILE")
	fl.StringVar(&f.report, "report", "", "write the whole test's HTML report to FILE")
	fl.StringVar(&f.summaryMode, "summary-mode", "compact", "end-of-test summary: compact, full, legacy (k6's pre-v1 layout) or disabled")
	fl.BoolVar(&f.noColor, "no-color", false, "no ANSI colours")
	fl.Float64Var(&f.slowFactor, "slow-factor", slowdatanode.DefaultSlowFactor, aggregateSlowFactorUsage)
	fl.StringVar(&f.tlsCert, "tls-cert", "", "serve TLS with this PEM certificate (with --tls-key; runners trust its CA with --aggregator-ca)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	return cmd
}

func runAggregate(sig *signals, s streams, f *aggregateFlags, dns slowdatanode.Report) error {
	mode, err := summary.ParseMode(f.summaryMode)
	if err != nil {
		return withCode(exitcode.InvalidConfig, fmt.Errorf("--summary-mode: %w", err))
	}
	log := slog.New(ui.NewLogHandler(s.err, ui.LogOptions{Color: isTerminal(s.err) && !f.noColor}))
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return withCode(exitcode.Failure, fmt.Errorf("--listen %s: %w", f.listen, err))
	}
	if ln, err = listenTLS(ln, f.tlsCert, f.tlsKey); err != nil {
		return err
	}
	var report *dashboard.Output
	// The instances' samples name DataNodes by uuid only: no addresses for the report's verdict.
	charts := dns.Charts()
	if f.report != "" {
		if report, err = dashboard.New(output.Params{Arg: "port=-1&export=" + f.report, Logger: log, Charts: charts}); err != nil {
			return withCode(exitcode.InvalidConfig, fmt.Errorf("--report: %w", err))
		}
		if err := report.Start(); err != nil {
			return withCode(exitcode.Failure, err)
		}
	}
	o := aggregate.Options{Listener: ln, Interval: f.interval, JoinTimeout: f.joinTimeout, Instances: f.instances, Logger: log,
		Charts: charts}
	if report != nil {
		o.Samples, o.Thresholds = samplesTo{report}, report.SetThresholds
	}
	configureDataNodes(&o, dns)
	o.Token = environ()[envAggregatorToken]
	if o.Token == "" && !isLoopback(ln.Addr()) {
		log.Warn(fmt.Sprintf("%s is unset: anyone who reaches %s can join the test and sway its verdict", envAggregatorToken, ln.Addr()))
	}
	log.Info("aggregator listening on " + ln.Addr().String())
	res, err := aggregate.New(o).Run(sig.soft)
	if err != nil {
		return withCode(exitcode.Failure, err)
	}
	printInstances(s.out, res)
	writeErr := writeAggregateResults(s, f, mode, res, report, log)
	code := aggregateExitCode(res, sig.soft.Err() != nil)
	if code == 0 && writeErr != nil {
		return withCode(exitcode.Failure, writeErr)
	}
	if code == exitcode.ExternalAbort {
		return withCode(code, errors.New("interrupted before every instance ended"))
	}
	if code != 0 {
		return withCode(code, verdictError(res))
	}
	return nil
}

// defaultAggregateListen is the loopback interface: listening elsewhere is a choice, to be made
// with a token.
const defaultAggregateListen = "127.0.0.1:6566"

// isLoopback says whether a listener's address is reachable from this host only.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// samplesTo feeds the report's output with the aggregator's synthesised samples.
type samplesTo struct{ o *dashboard.Output }

func (p samplesTo) PushSamples(b []metrics.Sample) { p.o.AddSamples(b) }

// writeAggregateResults prints the summary and writes the files; failures are logged and joined.
func writeAggregateResults(s streams, f *aggregateFlags, mode summary.Mode, res *aggregate.Report,
	report *dashboard.Output, log *slog.Logger) error {
	opts := summary.Options{NoColor: f.noColor || !isTerminal(s.out), IsStdOutTTY: isTerminal(s.out), IsStdErrTTY: isTerminal(s.err), Mode: mode}
	if res.Hello != nil {
		opts.TrendStats, opts.TimeUnit = res.Hello.SummaryTrendStats, res.Hello.SummaryTimeUnit
	}
	data, err := summary.Build(summary.Input{Snapshot: res.Snapshot, Thresholds: res.Thresholds, Duration: res.Duration,
		Sections: res.Sections, Options: opts})
	if err != nil {
		return err
	}
	var errs []error
	write := func(path string, b []byte, err error) {
		if path == "" {
			return
		}
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			log.Error(fmt.Sprintf("write %s: %v", path, err))
			errs = append(errs, err)
		}
	}
	if mode != summary.Disabled {
		_, _ = io.WriteString(s.out, data.Text())
	}
	b, err := data.Export()
	write(f.summaryExport, b, err)
	b, err = data.JSON()
	write(f.summaryData, b, err)
	if report != nil {
		_ = report.Stop()
		text := *data
		text.Options.NoColor = true
		if err := report.Finish(output.End{Summary: data, Text: text.Text(), Duration: res.Duration}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// printInstances lists how each instance ended.
func printInstances(out io.Writer, res *aggregate.Report) {
	fmt.Fprintf(out, "\n  INSTANCES (%d of %d)\n", len(res.Instances), res.Expected)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, in := range res.Instances {
		state := fmt.Sprintf("exit %d", in.ExitCode)
		if in.Lost {
			state = "LOST: " + in.Error
		}
		fmt.Fprintf(tw, "    %s\tsegment %s\t%d samples\t%s\t%s\n", in.Name, in.Segment, in.Samples, in.Elapsed.Round(time.Millisecond), state)
	}
	_ = tw.Flush()
}

// aggregateExitCode: 99 when a threshold failed on the whole test, else the first instance's own
// failure, else 105 when interrupted, else 255 when an instance was lost.
func aggregateExitCode(res *aggregate.Report, interrupted bool) int {
	if len(res.Verdict.Failed) > 0 {
		return exitcode.ThresholdsFailed
	}
	for _, in := range res.Instances {
		if !in.Lost && in.ExitCode != 0 {
			return in.ExitCode
		}
	}
	switch {
	case interrupted:
		return exitcode.ExternalAbort
	case len(res.Verdict.Lost) > 0:
		return exitcode.Failure
	}
	return 0
}

func verdictError(res *aggregate.Report) error {
	v := res.Verdict
	switch {
	case len(v.Failed) > 0 && v.Aborted:
		return fmt.Errorf("thresholds on metrics '%s' were crossed on the whole test; at least one has abortOnFail enabled, the test was stopped", strings.Join(v.Failed, ", "))
	case len(v.Failed) > 0:
		return fmt.Errorf("thresholds on metrics '%s' have been crossed on the whole test", strings.Join(v.Failed, ", "))
	case len(v.Lost) > 0:
		return fmt.Errorf("instance(s) lost before their end: %s", strings.Join(v.Lost, ", "))
	}
	return errors.New("an instance failed")
}
