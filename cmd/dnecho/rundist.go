package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dnecho/dnecho/engine/aggregate/stream"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/internal/hostport"
)

// Environment forms of the distributed-run flags (k6's names where k6 has the flag).
const (
	envAddress           = "K6_ADDRESS"
	envLinger            = "K6_LINGER"
	envAggregatorTimeout = "DNECHO_AGGREGATOR_TIMEOUT"
)

// distFlags are the flags of `dnecho run` for runs split between instances: k6's REST API
// (which k6-operator drives), pausing and the aggregator. The execution-segment flags are
// run's own (run.go), since a script's options may set them too.
type distFlags struct {
	address        string
	paused, linger bool
	aggregator     string
	aggTimeout     time.Duration
	aggCA          string
	token          string      // DNECHO_AGGREGATOR_TOKEN
	tls            *tls.Config // from --aggregator-ca
}

func (d *distFlags) add(fl *pflag.FlagSet) {
	fl.StringVarP(&d.address, "address", "a", "", "serve k6's REST API on host:port (also "+envAddress+"); none without it")
	fl.BoolVarP(&d.paused, "paused", "p", false, "pause after VU initialisation until resumed through the REST API (also K6_PAUSED)")
	fl.BoolVarP(&d.linger, "linger", "l", false, "keep the REST API up after the test until interrupted (also "+envLinger+")")
	// k6 reports usage to Grafana unless told not to; dnecho never does, so the flag is accepted
	// and means nothing (user arguments of a TestRun may carry it).
	fl.Bool("no-usage-report", false, "accepted for k6 compatibility; dnecho sends no usage report")
	_ = fl.MarkHidden("no-usage-report")
	fl.StringVar(&d.aggregator, "aggregator", "", "stream results to 'dnecho aggregate' at host:port, which judges the whole test (also "+envAggregator+"; its token in "+envAggregatorToken+")")
	fl.DurationVar(&d.aggTimeout, "aggregator-timeout", stream.DefaultDialTimeout,
		"how long to keep trying to reach the aggregator once the test is started; a --paused run keeps trying until then (also "+envAggregatorTimeout+")")
	fl.StringVar(&d.aggCA, "aggregator-ca", "", "reach the aggregator over TLS, trusting the CA certificates in this PEM file (also "+envAggregatorCA+")")
}

// aggregatorSettings checks how to reach the aggregator: its address, the timeout and the CA
// (flag, else environment) and the token (environment only, so that it stays out of process
// listings). A malformed address fails here rather than after --aggregator-timeout of dialling.
func (d *distFlags) aggregatorSettings(cmd *cobra.Command, env map[string]string) error {
	d.token = env[envAggregatorToken]
	named := "--aggregator %q: %w"
	if !cmd.Flags().Changed("aggregator") {
		d.aggregator, named = env[envAggregator], envAggregator+"=%q: %w"
	}
	if d.aggregator != "" {
		if err := hostport.Check(d.aggregator); err != nil {
			return withCode(exitcode.InvalidConfig, fmt.Errorf(named, d.aggregator, err))
		}
	}
	if v, ok := env[envAggregatorTimeout]; ok && v != "" && !cmd.Flags().Changed("aggregator-timeout") {
		t, err := time.ParseDuration(v)
		if err != nil {
			return withCode(exitcode.InvalidConfig, fmt.Errorf("%s=%q: use a duration such as 5m", envAggregatorTimeout, v))
		}
		d.aggTimeout = t
	}
	if d.aggTimeout <= 0 {
		return withCode(exitcode.InvalidConfig, fmt.Errorf("--aggregator-timeout (%s) %s: must be positive", envAggregatorTimeout, d.aggTimeout))
	}
	source := "--aggregator-ca"
	if !cmd.Flags().Changed("aggregator-ca") && env[envAggregatorCA] != "" {
		d.aggCA, source = env[envAggregatorCA], envAggregatorCA
	}
	var err error
	d.tls, err = aggregatorTLS(d.aggCA, source)
	return err
}

// layer adds the flags the user gave to the command-line options layer.
func (d *distFlags) layer(set func(string) bool, o *options.Options) {
	if set("paused") {
		o.Paused = null.From(d.paused)
	}
}

// restAPI is the REST API of one run, when --address asks for it.
type restAPI struct {
	control *runner.Control // nil without --address
	srv     *restapi.Server
	linger  bool
}

// startAPI binds --address (K6_ADDRESS) before the script loads, so that a busy address fails
// at once with exit code 106; requests are answered from when the script's options are known
// (runner.Control.Ready), so probes are answered while the VUs initialise. It also checks the
// aggregator's settings, before anything starts.
func (d *distFlags) startAPI(cmd *cobra.Command, env map[string]string, log *slog.Logger) (*restAPI, error) {
	if err := d.aggregatorSettings(cmd, env); err != nil {
		return nil, err
	}
	api := &restAPI{linger: d.linger}
	if v, ok := env[envLinger]; ok && v != "" && !cmd.Flags().Changed("linger") {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, withCode(exitcode.InvalidConfig, fmt.Errorf("%s=%q: use true or false", envLinger, v))
		}
		api.linger = b
	}
	addr := d.address
	if !cmd.Flags().Changed("address") {
		addr = env[envAddress]
	}
	if addr == "" {
		return api, nil
	}
	ln, err := restapi.Listen(addr)
	if err != nil {
		return nil, withCode(exitcode.CannotStartAPI, err)
	}
	api.control = runner.NewControl()
	if api.linger {
		api.control.KeepScript() // POST /v1/teardown after the test, as k6 allows
	}
	api.srv = restapi.Serve(ln, api.control, log)
	log.Debug("REST API listening on " + ln.Addr().String())
	return api, nil
}

// stream returns the link to the aggregator when --aggregator (DNECHO_AGGREGATOR) names one;
// aggregatorSettings has resolved and checked the address.
func (d *distFlags) stream(log *slog.Logger) *stream.Stream {
	if d.aggregator == "" {
		return nil
	}
	return stream.New(stream.Options{Addr: d.aggregator, DialTimeout: d.aggTimeout, Token: d.token, TLS: d.tls, Logger: log})
}

// apiAddress is the address the REST API listens on ("" without one), for the aggregator.
func (a *restAPI) apiAddress() string {
	if a.srv == nil {
		return ""
	}
	return a.srv.Addr().String()
}

// finish keeps the API up while lingering (until the first Ctrl-C or SIGTERM), then stops it.
func (a *restAPI) finish(sig *signals, out io.Writer, quiet bool) {
	if a.srv == nil {
		return
	}
	a.control.Abandon()
	if a.linger && sig.soft.Err() == nil {
		if !quiet {
			fmt.Fprintln(out, "The test is done, but --linger was enabled, so dnecho is waiting for Ctrl+C to continue...")
		}
		<-sig.soft.Done()
	}
	_ = a.srv.Close()
	a.control.Close()
}
