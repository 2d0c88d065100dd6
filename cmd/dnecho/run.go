package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/engine/ui"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/internal/vumemory"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/slowdatanode"
	dnechoext "github.com/dnecho/dnecho/xdnecho"
)

// envSCM is the __ENV variable scripts conventionally read the SCM address from; --local-cluster
// sets it when the user did not.
const envSCM = "DNECHO_SCM"

// envFailOnOutputLoss is the environment form of --fail-on-output-loss.
const envFailOnOutputLoss = "DNECHO_FAIL_ON_OUTPUT_LOSS"

// envVUMemoryCheck is the environment form of --vu-memory-check.
const envVUMemoryCheck = "DNECHO_VU_MEMORY_CHECK"

func newRunCommand(sig *signals, s streams) *cobra.Command {
	cmd, _ := newRunCommandFlags(sig, s)
	return cmd
}

// newRunCommandFlags returns the run command and the flags it fills; archive takes its flags.
func newRunCommandFlags(sig *signals, s streams) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] SCRIPT",
		Short: "Run a k6-style scenario script",
		Long: `Run a k6-style test script (JavaScript or TypeScript), as 'k6 run' does: the same lifecycle
(init, setup, default or scenario functions, teardown, handleSummary), options and layering
(config file < script options < K6_* environment < flags), executors, thresholds, outputs,
end-of-test summary and exit codes. Scripts import 'k6', 'k6/metrics', 'k6/execution', 'k6/timers',
'k6/encoding', 'k6/crypto', 'k6/data', 'k6/x/dnecho' (DataNode Echo; see js/index.d.ts) and
https:// modules (kept in the module cache, $DNECHO_MODULE_CACHE or ~/.cache/dnecho/modules).
SCRIPT '-' reads the script from stdin; SCRIPT may also be an archive made by 'dnecho archive'.

Ctrl-C stops the test gracefully (running iterations get their gracefulStop), a second Ctrl-C
stops it at once; the summary is printed and the exit code is 105.

More VUs than fit in memory (the plan's peak at ~179 KiB per VU against GOMEMLIMIT, the cgroup's
limit and the free memory) are refused before any starts; --vu-memory-check=false starts anyway.

Exit codes: 0 success, 99 thresholds crossed, 100 setup timeout, 101 teardown timeout,
103 stopped through the REST API, 104 invalid options (or too many VUs for the memory), 105 interrupted, 106 --address unusable, 107 script error, 108 exec.test.abort(), 110 exec.test.fail(),
111 an output dropped samples (only with --fail-on-output-loss),
255 results not written (an output, --summary-export), a command line it refuses (an unknown
flag, as k6's -1) or another failure.

A dnecho.Client whose options name no cluster (no scm, no conf) uses --conf/--scm (with -D,
--tls-ca and --user), else $OZONE_CONF_DIR. --local-cluster starts an emulated Ozone cluster (SCM +
DataNodes) in this process for the test, points dnecho.Client at it (and sets __ENV.DNECHO_SCM),
and stops it at the end.`,
		Example: `  dnecho run --local-cluster -u 8 -d 30s examples/quickstart.js
  dnecho run --conf /etc/ozone --summary-export summary.json echo.js
  dnecho run --scm 10.0.0.5:9860 -D ozone.client.read.timeout=5s echo.js
  dnecho run -i 1000 -u 10 -o json=samples.json -o csv=samples.csv script.ts
  dnecho run -s 10s:20 -s 20s:20 -s 10s:0 --tag testid=nightly script.js
  K6_DURATION=1m dnecho run -q --summary-mode full script.js`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScript(cmd, sig, s, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.Int64VarP(&f.vus, "vus", "u", 1, "number of virtual users")
	fl.StringVarP(&f.duration, "duration", "d", "", "test duration, e.g. 30s, 5m, 1h30m (constant-vus)")
	fl.Int64VarP(&f.iterations, "iterations", "i", 0, "total iterations shared by all VUs (shared-iterations)")
	fl.StringArrayVarP(&f.stages, "stage", "s", nil, "ramping stage DURATION:TARGET, repeatable (ramping-vus)")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "set __ENV variable NAME=VALUE, repeatable")
	fl.BoolVar(&f.includeSystemEnv, "include-system-env-vars", true, "pass the system environment to the script's __ENV")
	fl.StringArrayVarP(&f.out, "out", "o", nil, "output samples, repeatable: json[=FILE], csv[=FILE], influxdb=URL, xk6-influxdb[=URL],\nexperimental-prometheus-rw, opentelemetry, web-dashboard[=PARAMS] (see README)")
	fl.BoolVar(&f.failOnOutputLoss, "fail-on-output-loss", false, "exit with code 111 when an output dropped samples (also "+envFailOnOutputLoss+"=true)")
	fl.BoolVar(&f.vuMemoryCheck, "vu-memory-check", true, "refuse (exit 104) more VUs than the memory limit (GOMEMLIMIT, cgroup) or the free memory holds at ~"+
		vumemory.Size(vumemory.PerVU)+" per VU; false starts anyway (also "+envVUMemoryCheck+"=false)")
	fl.Float64Var(&f.slowFactor, "slow-factor", slowdatanode.DefaultSlowFactor, "name a DataNode slow in the summary (and count it in dnecho_slow_datanodes) when\n"+
		slowdatanode.RuleHelp+" (also "+envSlowFactor+")")
	fl.StringVar(&f.summaryExport, "summary-export", "", "write the end-of-test summary as JSON to FILE")
	fl.StringVar(&f.summaryMode, "summary-mode", options.DefaultSummaryMode, "end-of-test summary: compact, full, legacy (k6's pre-v1 layout) or disabled")
	fl.BoolVar(&f.noSummary, "no-summary", false, "no end-of-test summary, as --summary-mode=disabled (also K6_NO_SUMMARY)")
	// k6 v1 marks it deprecated: its help leaves it out and using it logs a notice (warnDeprecated;
	// cobra's own notice would go to stdout, which archive -O - and handleSummary own).
	_ = fl.MarkHidden("no-summary")
	fl.StringVar(&f.summaryTrendStats, "summary-trend-stats", "", "trend stats in the summary, e.g. avg,min,med,max,p(90),p(99),count")
	fl.StringVar(&f.summaryTimeUnit, "summary-time-unit", "", "fixed time unit in the summary: s, ms or us")
	fl.StringArrayVar(&f.tags, "tag", nil, "run tag NAME=VALUE added to every sample, repeatable")
	fl.StringVar(&f.systemTags, "system-tags", "", "system tags to record, comma-separated (default: k6's set)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no run header and no progress display")
	fl.BoolVar(&f.noColor, "no-color", false, "no ANSI colours (also NO_COLOR, K6_NO_COLOR)")
	fl.BoolVar(&f.noThresholds, "no-thresholds", false, "do not evaluate thresholds")
	fl.BoolVar(&f.noSetup, "no-setup", false, "do not run setup()")
	fl.BoolVar(&f.noTeardown, "no-teardown", false, "do not run teardown()")
	fl.StringVar(&f.logFormat, "log-format", "", "log format: text (default), json or raw")
	fl.StringVarP(&f.config, "config", "c", "", "JSON config file (also K6_CONFIG)")
	fl.BoolVarP(&f.throw, "throw", "w", false, "throw on metric-value and tag warnings instead of logging them")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "debug logging")
	fl.StringVar(&f.logOutput, "log-output", "stderr", "where logs go: stderr, stdout, none or file=PATH[,level=LEVEL] (also K6_LOG_OUTPUT)")
	fl.StringVar(&f.consoleOutput, "console-output", "", "write console.* output to FILE instead of the log")
	fl.StringVar(&f.minIterationDuration, "min-iteration-duration", "", "minimum time an iteration holds its VU, e.g. 1s")
	fl.StringVar(&f.segment, "execution-segment", "", "the part of the test this instance runs, e.g. 1/4:2/4 (with --execution-segment-sequence)")
	fl.StringVar(&f.segmentSequence, "execution-segment-sequence", "", "the segments of all instances, e.g. 0,1/4,2/4,3/4,1")
	fl.StringVar(&f.compatibilityMode, "compatibility-mode", options.DefaultCompatibilityMode, "JavaScript compatibility mode: extended or base")
	f.specs = newSpecFlags(fl, &f.cluster)
	f.specs.addCluster()
	f.specs.add(echo.FieldTLSCA, "tls-ca", "", "files", "", "CA certificate PEM file(s) for TLS to the DataNodes")
	f.specs.add(echo.FieldUser, "user", "", "name", "", "Hadoop RPC user name (default $HADOOP_USER_NAME or the OS user)")
	f.specs.addKerberos()
	fl.BoolVar(&f.localCluster, "local-cluster", false, "run the test against an emulated cluster started in this process")
	fl.IntVar(&f.lcDataNodes, "local-cluster-datanodes", minicluster.DefaultDataNodes, "DataNodes of --local-cluster")
	fl.DurationVar(&f.lcLatency, "local-cluster-latency", 0, "latency the --local-cluster DataNodes add to every call")
	f.dist.add(fl)
	return cmd, f
}

// runScript is `dnecho run`: it gathers the option layers and the streams, then hands the test
// to the runner and turns its verdict into the exit code.
func runScript(cmd *cobra.Command, sig *signals, s streams, f *runFlags, script string) error {
	sysEnv := environ()
	layers, err := f.layers(cmd, sysEnv)
	if err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	pre, _ := layers.Merge()
	test, err := readScriptArg(script, s.in)
	if err != nil {
		return withCode(exitcode.Failure, err)
	}
	scriptEnv, err := test.env(sysEnv, pre.IncludeSystemEnvVars.ValueOr(true), f.env)
	if err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}

	outTTY, errTTY := isTerminal(s.out), isTerminal(s.err)
	noColor := pre.NoColor.V
	disp := ui.New(ui.Options{
		Out: s.out, TTY: outTTY, Width: func() int { return termWidth(s.out) },
		Quiet: f.quiet, Color: outTTY && !noColor,
	})
	cl, err := newCommandLog(pre, f.verbose, s, disp.LogWriter)
	if err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	defer cl.close()
	log := cl.log
	warnDeprecated(cmd, log)
	disp.SetLogger(log)
	api, err := f.dist.startAPI(cmd, sysEnv, log)
	if err != nil {
		return err
	}
	defer api.finish(sig, s.out, f.quiet)

	if !f.localCluster {
		// -D alone may name the cluster, as for freon (clusterFromOverrides).
		if f.cluster.Cluster, err = clusterFromOverrides(f.cluster.Cluster, os.Getenv); err != nil {
			return withCode(exitcode.InvalidConfig, err)
		}
	}
	defaults := dnechoext.Defaults{
		SCM: f.cluster.Cluster.SCM, ConfDir: f.cluster.Cluster.ConfDir, Overrides: f.cluster.Cluster.Overrides,
		CAFiles: f.cluster.TLSCA, User: f.cluster.Cluster.User,
		Principal: f.cluster.Cluster.Principal, Keytab: f.cluster.Cluster.Keytab,
	}
	if f.localCluster && f.cluster.Cluster.IsSet() {
		return withCode(exitcode.InvalidConfig, errors.New("--local-cluster starts its own cluster: leave out --conf and --scm"))
	}
	if f.localCluster {
		d, stop, err := startLocalCluster(f, scriptEnv, log)
		if err != nil {
			return withCode(exitcode.Failure, err)
		}
		defer stop()
		d.Overrides, d.User, d.CAFiles = defaults.Overrides, defaults.User, defaults.CAFiles
		d.Principal, d.Keytab = defaults.Principal, defaults.Keytab
		defaults = d
	}

	failOnLoss, err := boolSetting(cmd, sysEnv, "fail-on-output-loss", envFailOnOutputLoss, f.failOnOutputLoss)
	if err != nil {
		return err
	}
	vuMemoryCheck, err := boolSetting(cmd, sysEnv, "vu-memory-check", envVUMemoryCheck, f.vuMemoryCheck)
	if err != nil {
		return err
	}
	slow, err := slowOptions(cmd, sysEnv, f.slowFactor)
	if err != nil {
		return err
	}
	dns := newRunDataNodes(defaults, slow)
	cfg := runner.Config{
		Layers: layers, Env: scriptEnv, SystemEnv: sysEnv,
		Stdout: s.out, Stderr: s.err, StdoutTTY: outTTY, StderrTTY: errTTY,
		Logger: log, ConsoleLogger: cl.console, Display: disp, Hard: sig.hard, Breakdowns: slowdatanode.BreakdownsWithSummary(), Charts: dns.report.Charts(),
		StartDelayMetric: echometrics.IterationStartDelay,
		Remote:           remoteModules(log),
		Modules:          map[string]modules.Factory{dnechoext.ImportPath: dns.factory},
		EndOfTest:        dns.endOfTest,
		DuringTest:       dns.report.DuringTest,
		FailOnOutputLoss: failOnLoss,
		NoVUMemoryCheck:  !vuMemoryCheck,
		Control:          api.control,
		APIAddress:       api.apiAddress(),
		Aggregation:      f.dist.stream(log),
	}
	test.configure(&cfg)
	_, err = runner.Run(sig.soft, cfg)
	if err != nil {
		code := runner.ExitCode(err)
		if errors.As(err, new(*vumemory.Error)) {
			err = fmt.Errorf("%w (use --vu-memory-check=false or %s=false to start anyway)", err, envVUMemoryCheck)
		}
		return withCode(code, err)
	}
	return nil
}

// warnDeprecated logs, on stderr, the flags k6 v1 deprecated that the command line used.
func warnDeprecated(cmd *cobra.Command, log *slog.Logger) {
	if cmd.Flags().Changed("no-summary") {
		log.Warn("--no-summary is deprecated in k6 v1 and removed in k6 v2: use --summary-mode=disabled")
	}
}

// boolSetting is a boolean flag's value: the flag when given, else its environment variable
// when set, else the flag's default.
func boolSetting(cmd *cobra.Command, env map[string]string, flag, envName string, value bool) (bool, error) {
	v, ok := env[envName]
	if !ok || cmd.Flags().Changed(flag) {
		return value, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return value, withCode(exitcode.InvalidConfig, fmt.Errorf("%s=%q: use true or false", envName, v))
	}
	return b, nil
}

// startLocalCluster starts the emulated cluster for --local-cluster and returns the dnecho
// module's defaults that point at it. The returned function stops it.
func startLocalCluster(f *runFlags, env map[string]string, log *slog.Logger) (d dnechoext.Defaults, stop func(), err error) {
	if f.lcDataNodes < 1 {
		return d, nil, fmt.Errorf("--local-cluster-datanodes %d: at least 1", f.lcDataNodes)
	}
	if f.lcLatency < 0 {
		return d, nil, fmt.Errorf("--local-cluster-latency %s: can't be negative", f.lcLatency)
	}
	dir, err := os.MkdirTemp("", "dnecho-local-cluster-")
	if err != nil {
		return d, nil, err
	}
	c, err := minicluster.Start(minicluster.Options{DataNodes: f.lcDataNodes, Faults: dnsim.Faults{Latency: f.lcLatency}})
	if err != nil {
		os.RemoveAll(dir)
		return d, nil, fmt.Errorf("start the local cluster: %w", err)
	}
	if err := c.WriteConf(dir); err != nil {
		c.Close()
		os.RemoveAll(dir)
		return d, nil, fmt.Errorf("write the local cluster's configuration: %w", err)
	}
	d = dnechoext.Defaults{SCM: c.SCMAddrs(), ConfDir: dir}
	if _, ok := env[envSCM]; !ok {
		env[envSCM] = strings.Join(c.SCMAddrs(), ",")
	}
	log.Info(fmt.Sprintf("local cluster: SCM %s, %d DataNodes, containers %v, config %s",
		strings.Join(c.SCMAddrs(), ","), f.lcDataNodes, c.Containers(), filepath.Join(dir, "ozone-site.xml")))
	return d, func() {
		if err := c.Close(); err != nil {
			log.Warn("stop the local cluster: " + err.Error())
		}
		os.RemoveAll(dir)
	}, nil
}
