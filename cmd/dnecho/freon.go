package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/slowdatanode"
)

// dn-echo's own validation messages, verbatim (the "OM" wording is upstream's, copied from
// om-echo; Ozone: hadoop-ozone/freon/src/main/java/org/apache/hadoop/ozone/freon/
// DNRPCLoadGenerator.java).
const (
	msgPayloadReqNegative  = "OM echo request payload size should be positive value or zero."
	msgPayloadRespNegative = "OM echo response payload size should be positive value or zero."
	// msgReadOnlyForced is freon's WARN (logger freon.DNRPCLoadGenerator) without --ratis.
	msgReadOnlyForced = "Read only is not set to true for GRPC, setting it to true"
)

// freonGlobals are freon's parent options (Java's Freon and GenericCli). They are persistent
// flags, so they may come before dn-echo or after it, as Java's inherited --verbose may.
type freonGlobals struct {
	verbose bool
	server  bool
}

func newFreonCommand(sig *signals, s streams) *cobra.Command {
	g := &freonGlobals{}
	cmd := &cobra.Command{
		Use:   "freon COMMAND",
		Short: "Ozone freon load generators (dn-echo)",
		// A missing or unknown generator is a usage error, as in Java's picocli (exit 2); cobra
		// would print the help and exit 0 for a command that cannot run.
		RunE: func(cmd *cobra.Command, args []string) error {
			return withCode(exitUsage, freonSubcommandError(cmd, args))
		},
	}
	pf := cmd.PersistentFlags()
	pf.BoolVar(&g.verbose, "verbose", false, "list every option and its value after the report (\"Option:\"), as Java freon does")
	pf.BoolVar(&g.server, "server", false, fmt.Sprintf("serve the live web dashboard at %s (default %s:%d), where Java freon\n"+
		"serves its metrics", config.KeyFreonHTTPAddress, config.DefaultFreonHTTPBindHost, config.DefaultFreonHTTPPort))
	cmd.AddCommand(newDNEchoCommand(sig, s, g))
	return cmd
}

// freonSubcommandError says what is wrong with `dnecho freon [ARG]` when no generator ran.
func freonSubcommandError(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("missing required subcommand: use %s dn-echo (its --help lists the options)", cmd.CommandPath())
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which only its root command applies
	if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
		msg += "; did you mean " + strings.Join(sug, " or ") + "?"
	}
	return errors.New(msg)
}

// dnEchoFlags are the command line of `dnecho freon dn-echo`: freon's runner options, dn-echo's
// options in freon's units, and the echo Spec that dnecho's own options set directly.
type dnEchoFlags struct {
	run           freon.Options
	spec          echo.Spec
	specs         *specFlags
	payloadReqKB  int
	payloadRespKB int
	ratis         bool
	report        string
	out           []string
	tags          []string
	failOnLoss    bool
	slow          slowdatanode.Options
	global        *freonGlobals
}

func newDNEchoCommand(sig *signals, s streams, g *freonGlobals) *cobra.Command {
	f := &dnEchoFlags{run: freon.DefaultOptions(), slow: slowdatanode.DefaultOptions(), global: g}
	cmd := &cobra.Command{
		Use:     "dn-echo",
		Aliases: []string{"dne"},
		Short:   "Generate echo RPC request to DataNode",
		Long: `Generate echo RPC request to DataNode.

A drop-in for 'ozone freon dn-echo': the same options, units (KB) and defaults, the same report
(Dropwizard console layout on a terminal, log4j lines on stderr otherwise) and exit status (255 when
any call failed; 130 after Ctrl-C, with the report of what ran; 2 for a bad command line).
Percentiles are exact up to 16 Mi calls (then from an HDR histogram with 3 significant digits, and
the report says so), where freon's are sampled.

It looks the container's pipeline up from SCM (GetContainer, ListPipelines), fetches a container
token when hdds.container.token.enabled is set, and sends Echo to the pipeline's first DataNode over
gRPC, retrying on the other members on failure, like Ozone's Java client. A call's latency runs
from the call to the DataNode's response, as freon's rpc-payload timer does.

With --ratis the Echo goes through the pipeline's Raft group on the DataNodes' RATIS port instead,
as freon's does: a write (logged, replicated to a majority, applied on every replica; the path
behind hsync) or, with --read-only, a read the leader answers. Writes are refused unless SCM lists
the container OPEN on its pipeline: a write to a container a replica lacks closes the pipeline on a
real cluster (--unsafe-write overrides).

With --rate N (per second; N/m per minute) calls start on a fixed schedule, up to -t at a time, and
each call's latency counts from when it was due, so a stalled DataNode shows in the percentiles
(an open loop; freon's own is closed). The report's "Loop:" line counts the calls that started late.

When every call fails with UNAVAILABLE for --reresolve-after (DataNodes restarted on new ports, the
pipeline replaced), dnecho asks SCM for the container's pipeline again and carries on there; the
Java tool never does (--no-reresolve behaves like it).

The options from --scm on are dnecho's own; the ones before them are freon's.`,
		Example: `  dnecho freon dn-echo --conf /etc/ozone --container-id 1 -n 100000 -t 32 --payload-resp 1
  dnecho freon dne --scm 127.0.0.1:9860 --container-id 2 --duration 1m -t 8 --target all -f
  dnecho freon dn-echo --conf /etc/ozone --container-id 1 --duration 5m --rate 2000 -t 64
  dnecho freon dn-echo --conf /tmp/mini --container-id 1 -t=1 -n=1 --payload-req=1 --payload-resp=1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDNEcho(sig, s, f, cmd.Flags())
		},
	}
	f.addFlags(cmd)
	return cmd
}

func (f *dnEchoFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.SortFlags = false
	f.specs = newSpecFlags(fl, &f.spec)
	sf, o := f.specs, &f.run
	// freon's own options (docs/ozone-echo.md, "freon dn-echo").
	fl.Int64VarP(&o.NumberOfTests, "number-of-tests", "n", o.NumberOfTests, "number of the generated objects")
	fl.IntVarP(&o.Threads, "threads", "t", o.Threads, fmt.Sprintf("number of threads used to execute (at most %d)", freon.MaxThreads))
	fl.IntVar(&o.Threads, "thread", o.Threads, "alias of --threads")
	_ = fl.MarkHidden("thread")
	fl.StringVar(&o.Duration, "duration", "", "run for this long instead of --number-of-tests (duration mode), e.g. 30s, 5m, 1h, 7d")
	fl.BoolVarP(&o.FailAtEnd, "fail-at-end", "f", false, "if turned on, all the tasks will be executed even if there are failures")
	fl.StringVarP(&o.Prefix, "prefix", "p", "", "unique identifier of the test execution, usually used as a prefix of the generated object\nnames; if empty, a random name will be generated")
	sf.add(echo.FieldContainerID, "container-id", "", "id", "", "send echo to the DataNodes associated with this container (required)")
	fl.IntVar(&f.payloadReqKB, "payload-req", 0, "size of the payload in KB in each request (ignored by the DataNode)")
	fl.IntVar(&f.payloadRespKB, "payload-resp", 0, "size of the payload in KB in each response (capped at 2097151 bytes, like freon)")
	sf.add(echo.FieldSleepMs, "sleep-time-ms", "", "int", "0", "let the DataNode pause for this many milliseconds for each request")
	sf.add(echo.FieldClients, "clients", "", "int", "1", fmt.Sprintf("number of independent clients (gRPC connections, at most %d); task i uses client i mod clients", echo.MaxClients))
	sf.addBool(echo.FieldReadOnly, "read-only", "whether the echo is read-only (forced on without --ratis, as in freon)")
	fl.BoolVar(&f.ratis, "ratis", false, "send through the pipeline's Raft group (RATIS port): a write applied on every replica,\nor with --read-only a read the leader serves")
	sf.names[echo.FieldTransport] = "--ratis"
	sf.addCluster()
	// dnecho's options.
	fl.StringVar(&o.Rate, "rate", "", "open loop: start `N` calls per second (N, N/s) or per minute (N/m), up to --threads at a time;\n"+
		"a call's latency counts from when it was due (default: freon's closed loop)")
	sf.add(echo.FieldTarget, "target", "", "first|all|dn", echo.TargetFirst, "which DataNode(s): first (Java client order, retry on the others), all (round-robin\nover every replica, no retry), or one DataNode's uuid or host")
	sf.add(echo.FieldStream, "stream", "", "new|reuse", string(echo.StreamNew), "gRPC stream use: new (a stream per request, like Java) or reuse (long-lived streams)")
	sf.addTransport()
	sf.addBool(echo.FieldNoRetry, "no-retry", "do not retry a failed call on the other pipeline members (with --ratis: no Raft retries)")
	sf.addBool(echo.FieldUnsafeWrite, "unsafe-write", "with --ratis: write even when SCM does not list the container OPEN on its pipeline\n(a write a replica cannot apply closes the pipeline on a real cluster)")
	sf.add(echo.FieldLookup, "lookup", "", "freon|single", string(echo.LookupFreon), "SCM lookup: freon (GetContainer + ListPipelines) or single (GetContainerWithPipeline)")
	sf.add(echo.FieldToken, "token", "", "auto|none|token", echo.TokenAuto, "container token: auto (from SCM when hdds.container.token.enabled), none, or an encoded token")
	sf.add(echo.FieldTLSCA, "tls-ca", "", "files", "", "CA certificate PEM file(s) for TLS to the DataNodes (turns TLS on)")
	sf.add(echo.FieldDeadline, "deadline", "", "duration", "", "deadline of one Echo attempt (default ozone.client.read.timeout, 30s)")
	sf.add(echo.FieldLookupTimeout, "lookup-timeout", "", "duration", echo.DefaultLookupTimeout.String(), "give up on the SCM lookup after this long; within it an SCM silent for 5s (-D hdds.scmclient.rpc.timeout; at most a quarter of this) is left for the next SCM")
	sf.add(echo.FieldReresolveAfter, "reresolve-after", "", "duration", echo.DefaultReresolveAfter.String(), "look the container up again after this long of nothing but UNAVAILABLE")
	sf.addBool(echo.FieldNoReresolve, "no-reresolve", "keep the pipeline found at the start, like the Java tool")
	sf.addBool(echo.FieldUncapped, "payload-resp-uncapped", "send --payload-resp in full instead of freon's 2097151-byte cap\n(DataNode errors above its limits are counted by result, not fatal)")
	fl.StringVar(&f.report, "report", "auto", "report format: auto (console on a terminal, log lines otherwise), console or log")
	fl.StringArrayVarP(&f.out, "out", "o", nil, "also send every call's dnecho_* samples to an `output`, as dnecho run -o does:\n"+
		"json=FILE, csv=FILE, influxdb=URL, xk6-influxdb, experimental-prometheus-rw, opentelemetry, web-dashboard (repeatable;\n"+
		"K6_* environment variables configure them; K6_WEB_DASHBOARD_EXPORT=report.html keeps the dashboard with this report)")
	fl.StringArrayVar(&f.tags, "tag", nil, "run tag `NAME=VALUE` added to every -o sample, as dnecho run --tag does (repeatable;\n"+
		"default K6_TAGS=NAME:VALUE,..., k6's form)")
	fl.BoolVar(&f.failOnLoss, "fail-on-output-loss", false, "exit 111 when an output dropped samples (by default it is only reported)")
	fl.Float64Var(&f.slow.SlowFactor, "slow-factor", f.slow.SlowFactor, "name a DataNode slow after the report when "+slowdatanode.RuleHelp)
	sf.add(echo.FieldUser, "user", "", "name", "", "user name for Hadoop RPC (default $HADOOP_USER_NAME or the OS user)")
	sf.addKerberos()
}

// echoSpec completes the Spec with the options given in freon's units and checks it.
func (f *dnEchoFlags) echoSpec() (echo.Spec, error) {
	const maxKB = echo.MaxRequestBytes / echo.PayloadUnit
	switch {
	case f.payloadReqKB < 0:
		return f.spec, errors.New(msgPayloadReqNegative)
	case f.payloadRespKB < 0:
		return f.spec, errors.New(msgPayloadRespNegative)
	case f.payloadReqKB > maxKB:
		// Checked before any payload is built: freon's own cap (2097151 KB) would have us
		// allocate 2 GiB only for the DataNode's message limit to refuse it.
		return f.spec, fmt.Errorf("invalid --payload-req %d KB: a request must fit the %d KB (32 MiB) message limit of the DataNode's gRPC port", f.payloadReqKB, maxKB)
	}
	s := f.spec
	s.Request.PayloadReq = int64(f.payloadReqKB) * echo.PayloadUnit
	s.Request.PayloadResp = int64(f.payloadRespKB) * echo.PayloadUnit
	if f.ratis {
		s.Transport = echo.TransportRatis
	}
	if err := s.Validate(); err != nil {
		return s, f.specs.rename(err)
	}
	return s, nil
}

func runDNEcho(sig *signals, s streams, f *dnEchoFlags, fl *pflag.FlagSet) error {
	spec, err := f.echoSpec()
	if err != nil {
		return withCode(exitUsage, err)
	}
	if spec.Cluster, err = clusterFromOverrides(spec.Cluster, os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	if err := f.run.Validate(); err != nil {
		return withCode(exitUsage, err)
	}
	if err := f.slow.Validate(); err != nil {
		return withCode(exitUsage, fmt.Errorf("--slow-factor %v: want a number above 1", f.slow.SlowFactor))
	}
	interactive, err := reportMode(f.report, s)
	if err != nil {
		return withCode(exitUsage, err)
	}
	env := environ()
	tags, err := f.runTags(env)
	if err != nil {
		return withCode(exitUsage, err)
	}
	logw := freon.NewLogWriter(s.err, nil)
	// The dashboard's live verdict names DataNodes with the addresses the calls reached; the
	// outputs are opened before the session, so it reads them once the watch exists.
	var watched atomic.Pointer[freonDataNodes]
	outSpecs := f.out
	if f.global.server {
		if outSpecs, err = withFreonServer(outSpecs, spec.Cluster); err != nil {
			return withCode(exitUsage, err)
		}
	}
	charts := slowdatanode.Report{Options: f.slow, Addrs: func() func(string, echo.Mode) string {
		if d := watched.Load(); d != nil {
			return d.addr
		}
		return nil
	}}.Charts()
	outSet, err := openFreonOutputs(outSpecs, env, s, logw, charts, f.run.Length())
	if err != nil {
		return err
	}
	sess, err := echo.Open(sig.soft, spec, f.logEvents(logw))
	if err != nil {
		return f.openFailed(err)
	}
	defer sess.Close()
	if !spec.Request.ReadOnly && spec.Transport != echo.TransportRatis {
		_ = logw.Log(freon.ThreadMain, freon.LevelWarn, freon.LoggerDNEcho, msgReadOnlyForced)
	}
	_ = logw.Log(freon.ThreadMain, freon.LevelInfo, freon.LoggerDNEchoNotes, "Target: "+sess.Placement().Describe())
	outs, err := startFreonOutputs(outSet, tags, sess, f.run.Threads, logw)
	if err != nil {
		return err
	}
	dns := watchDataNodes(sess, f.slow, outs)
	watched.Store(dns)
	prefix := freon.ResolvePrefix(f.run.Prefix, os.Getenv, rand.IntN)
	var optionList []string
	if f.global.verbose {
		optionList = f.freonOptionList(fl, prefix, spec)
	}
	res, err := freon.Generator{
		Options: f.run, Prefix: prefix, OptionList: optionList,
		Interactive: interactive, Out: s.out, Log: logw, Appendix: dns.appendix,
		Task: func(ctx context.Context, taskID int) freon.Outcome {
			r := sess.Echo(ctx, uint64(taskID))
			outs.record(taskID, &r)
			return dns.outcome(&r)
		},
	}.Run(sig.soft)
	if err != nil {
		dns.stop() // before the outputs close: the watch feeds them
		_ = outs.close(sig.hard, "", 0, false)
		return withCode(freonExitFailed, err)
	}
	now := time.Now()
	if err := outs.close(sig.hard, res.Text(now)+dns.text(res), now.Sub(res.Start), f.failOnLoss); err != nil {
		return err
	}
	switch {
	case res.Cancelled && f.run.Duration != "":
		return withCode(exitInterrupted, fmt.Errorf("interrupted after %d calls", res.Successes+res.Failures))
	case res.Cancelled:
		return withCode(exitInterrupted, fmt.Errorf("interrupted after %d of %d calls", res.Successes+res.Failures, f.run.NumberOfTests))
	case res.Failures > 0:
		return withCode(freonExitFailed, errors.New(freon.MsgTestFailed))
	}
	return nil
}

// runTags are the tags of every sample: --tag, else K6_TAGS, as in `dnecho run`.
func (f *dnEchoFlags) runTags(env map[string]string) (map[string]string, error) {
	if f.tags != nil {
		tags, err := options.ParseTags(f.tags)
		if err != nil {
			return nil, fmt.Errorf("--tag %w", err)
		}
		return tags, nil
	}
	v, ok := env["K6_TAGS"]
	if !ok {
		return nil, nil
	}
	tags, err := options.ParseEnvTags(v) // k6's name:value form, as `dnecho run` reads it
	if err != nil {
		return nil, fmt.Errorf("K6_TAGS %w", err)
	}
	return tags, nil
}

// openFailed maps a failed Open to its exit status: an interrupt (130), a bad option (2), or a
// cluster that could not be used (255, as freon dies before its report).
func (f *dnEchoFlags) openFailed(err error) error {
	var fe *echo.FieldError
	var ue *echo.UnsafeWriteError
	switch {
	case errors.As(err, &ue):
		return withCode(freonExitFailed, fmt.Errorf("%w (--unsafe-write)", err))
	case errors.Is(err, echo.ErrInterrupted):
		return withCode(exitInterrupted, err)
	case errors.Is(err, echo.ErrNoCluster):
		return withCode(exitUsage, errors.New(msgNoCluster))
	case errors.As(err, &fe):
		return withCode(exitUsage, f.specs.rename(err))
	}
	return withCode(freonExitFailed, err)
}

// logEvents shows the session's events as freon log lines, naming this command's options.
func (f *dnEchoFlags) logEvents(logw *freon.LogWriter) echo.Observer {
	return func(e echo.Event) {
		msg, level := e.Message, freon.LevelWarn
		if n := f.specs.name(e.Field); n != "" {
			msg += " (see " + n + ")"
		}
		if e.Kind.Info() {
			level = freon.LevelInfo
		}
		_ = logw.Log(freon.ThreadMain, level, freon.LoggerDNEchoNotes, msg)
	}
}

// reportMode decides between freon's console (TTY) and log (non-TTY) report.
func reportMode(mode string, s streams) (bool, error) {
	switch mode {
	case "console":
		return true, nil
	case "log":
		return false, nil
	case "auto":
		f, ok := s.out.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, fmt.Errorf("--report %q: use auto, console or log", mode)
}
