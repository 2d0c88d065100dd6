package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/target"
)

// freonExitFailed is freon's exit status when any task failed or the command died (Java's −1).
const freonExitFailed = 255

// exitInterrupted is the conventional status after Ctrl-C (128 + SIGINT).
const exitInterrupted = 130

func newFreonCommand(sig *signals, s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "freon",
		Short: "Ozone freon load generators (dn-echo)",
	}
	cmd.AddCommand(newDNEchoCommand(sig, s))
	return cmd
}

// dnEchoFlags are the command line of `dnecho freon dn-echo`: freon's options, then ours.
type dnEchoFlags struct {
	opts freon.Options

	conf        string
	set         []string
	scm         []string
	target      string
	stream      string
	noRetry     bool
	lookup      string
	token       string
	tlsCA       []string
	deadline    time.Duration
	lookupLimit time.Duration
	report      string
	user        string
}

func newDNEchoCommand(sig *signals, s streams) *cobra.Command {
	f := &dnEchoFlags{opts: freon.DefaultOptions()}
	cmd := &cobra.Command{
		Use:     "dn-echo",
		Aliases: []string{"dne"},
		Short:   "Generate echo RPC request to DataNode",
		Long: `Generate echo RPC request to DataNode.

A drop-in for 'ozone freon dn-echo': the same options, units (KB) and defaults, the same report
(Dropwizard console layout on a terminal, log4j lines on stderr otherwise) and exit status (255 when
any call failed). Percentiles are exact over the whole run, where freon's are sampled.

It looks the container's pipeline up from SCM (GetContainer, ListPipelines), fetches a container
token when hdds.container.token.enabled is set, and sends Echo to the pipeline's first DataNode over
gRPC, retrying on the other members on failure, like Ozone's Java client.

The options from --scm on are dnecho's own; the ones before them are freon's.`,
		Example: `  dnecho freon dn-echo --conf /etc/ozone --container-id 1 -n 100000 -t 32 --payload-resp 1
  dnecho freon dne --scm 127.0.0.1:9860 --container-id 2 --duration 1m -t 8 --target all -f
  dnecho freon dn-echo --conf /tmp/mini --container-id 1 -t=1 -n=1 --payload-req=1 --payload-resp=1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDNEcho(cmd.Context(), sig, s, f)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	o := &f.opts
	// freon's own options (ozone-echo.md §6.2, §6.3).
	fl.Int64VarP(&o.NumberOfTests, "number-of-tests", "n", o.NumberOfTests, "Number of the generated objects.")
	fl.IntVarP(&o.Threads, "threads", "t", o.Threads, "Number of threads used to execute")
	fl.IntVar(&o.Threads, "thread", o.Threads, "Alias of --threads")
	_ = fl.MarkHidden("thread")
	fl.StringVar(&o.Duration, "duration", "", "Run for this long instead of --number-of-tests (duration mode), e.g. 30s, 5m, 1h, 7d")
	fl.BoolVarP(&o.FailAtEnd, "fail-at-end", "f", false, "If turned on, all the tasks will be executed even if there are failures.")
	fl.StringVarP(&o.Prefix, "prefix", "p", "", "Unique identifier of the test execution. Usually used as a prefix of the generated object\nnames. If empty, a random name will be generated")
	fl.Int64Var(&o.ContainerID, "container-id", 0, "Send echo to DataNodes associated with this container")
	fl.IntVar(&o.PayloadReqKB, "payload-req", 0, "Specifies the size of payload in KB in each request (ignored by the DataNode)")
	fl.IntVar(&o.PayloadRespKB, "payload-resp", 0, "Specifies the size of payload in KB in each response (capped at 2097151 bytes, like freon)")
	fl.IntVar(&o.SleepTimeMs, "sleep-time-ms", 0, "Let the DataNode to pause for a duration (in milliseconds) for each request")
	fl.IntVar(&o.Clients, "clients", o.Clients, "Number of independent clients (gRPC connections); task i uses client i mod clients")
	fl.BoolVar(&o.ReadOnly, "read-only", false, "Whether the echo is read-only (forced on without --ratis, as in freon)")
	fl.BoolVar(&o.Ratis, "ratis", false, "Write requests through Ratis (not supported yet)")
	fl.StringVar(&f.conf, "conf", "", "Ozone configuration directory or ozone-site.xml file (default $OZONE_CONF_DIR)")
	fl.StringArrayVarP(&f.set, "set", "D", nil, "Configuration override key=value (repeatable)")
	// dnecho's options.
	fl.StringSliceVar(&f.scm, "scm", nil, "SCM client address(es) host:port, comma-separated for SCM HA (instead of --conf)")
	fl.StringVar(&f.target, "target", "first", "Which DataNode(s): first (Java client order, retry on the others), all (round-robin\nover every replica, no retry), or one DataNode's uuid or host")
	fl.StringVar(&f.stream, "stream", "new", "gRPC stream use: new (a stream per request, like Java) or reuse (long-lived streams)")
	fl.BoolVar(&f.noRetry, "no-retry", false, "Do not retry a failed call on the other pipeline members")
	fl.StringVar(&f.lookup, "lookup", "freon", "SCM lookup: freon (GetContainer + ListPipelines) or single (GetContainerWithPipeline)")
	fl.StringVar(&f.token, "token", target.TokenAuto, "Container token: auto (from SCM when hdds.container.token.enabled), none, or an encoded token")
	fl.StringSliceVar(&f.tlsCA, "tls-ca", nil, "CA certificate PEM file(s) for TLS to the DataNodes (turns TLS on)")
	fl.DurationVar(&f.deadline, "deadline", 0, "Deadline of one Echo attempt (default ozone.client.read.timeout, 30s)")
	fl.DurationVar(&f.lookupLimit, "lookup-timeout", target.DefaultLookupTimeout, "Give up on the SCM lookup after this long")
	fl.BoolVar(&o.UncappedResponse, "payload-resp-uncapped", false, "Send --payload-resp in full instead of freon's 2097151-byte cap\n(DataNode errors above its limits are counted by result, not fatal)")
	fl.StringVar(&f.report, "report", "auto", "Report format: auto (console on a terminal, log lines otherwise), console or log")
	fl.StringVar(&f.user, "user", "", "Hadoop RPC user name (default the OS user)")
	return cmd
}

func runDNEcho(_ context.Context, sig *signals, s streams, f *dnEchoFlags) error {
	o := f.opts
	if o.Ratis {
		return withCode(2, errors.New("--ratis (Echo written through Apache Ratis) is not supported yet; "+
			"leave it out to echo over gRPC, which is freon's default"))
	}
	if err := o.Validate(); err != nil {
		return withCode(freonExitFailed, err)
	}
	dnOpts, err := f.datanodeOptions()
	if err != nil {
		return withCode(2, err)
	}
	lookupMode, err := parseLookup(f.lookup)
	if err != nil {
		return withCode(2, err)
	}
	interactive, err := reportMode(f.report, s)
	if err != nil {
		return withCode(2, err)
	}
	logw := freon.NewLogWriter(s.err, nil)
	prefix := freon.ResolvePrefix(o.Prefix, os.Getenv, randIndex)

	// A lookup normally takes milliseconds; when SCM is slow or unreachable, say so while waiting.
	waiting := time.AfterFunc(min(2*time.Second, f.lookupLimit/2), func() {
		_ = logw.Log(freon.ThreadMain, freon.LevelWarn, freon.LoggerDNEchoNotes, fmt.Sprintf(
			"still waiting for SCM to answer the lookup of container %d (retrying; giving up after %s, see --lookup-timeout)",
			o.ContainerID, f.lookupLimit))
	})
	tgt, err := target.Resolve(sig.soft, target.Options{
		SCM: f.scm, ConfDir: f.conf, Overrides: f.set, ContainerID: o.ContainerID,
		Lookup: lookupMode, Token: f.token, LookupTimeout: f.lookupLimit, User: f.user,
	})
	waiting.Stop()
	if err != nil {
		return withCode(freonExitFailed, err)
	}
	dnOpts, err = tgt.DataNodeOptions(dnOpts, f.tlsCA)
	if err != nil {
		return withCode(2, err)
	}
	readOnly, warn := o.EffectiveReadOnly()
	if warn {
		_ = logw.Log(freon.ThreadMain, freon.LevelWarn, freon.LoggerDNEcho, freon.MsgReadOnlyForced)
	}
	pool, err := target.NewPool(tgt, dnOpts, o.Clients)
	if err != nil {
		return withCode(freonExitFailed, err)
	}
	defer pool.Close()
	prepared, err := pool.Prepare(datanode.Request{
		ContainerID: o.ContainerID, Token: tgt.Token, Payload: freon.RequestPayload(o.PayloadReqKB),
		PayloadSizeResp: freon.ResponseSize(o.PayloadRespKB, o.UncappedResponse),
		SleepTimeMs:     int32(o.SleepTimeMs), ReadOnly: readOnly,
	})
	if err != nil {
		return withCode(freonExitFailed, fmt.Errorf("--payload-req %d KB / --payload-resp %d KB: %w", o.PayloadReqKB, o.PayloadRespKB, err))
	}
	_ = logw.Log(freon.ThreadMain, freon.LevelInfo, freon.LoggerDNEchoNotes, "Target: "+tgt.Describe())
	res, err := freon.Session{
		Options: o, Prefix: prefix, Label: datanode.ErrorLabel, Interactive: interactive, Out: s.out, Log: logw,
		Task: func(ctx context.Context, taskID int) error {
			i := uint64(taskID) % uint64(pool.Len())
			_, err := pool.For(i).Echo(ctx, prepared[i])
			return err
		},
	}.Run(sig.soft)
	if err != nil {
		return withCode(freonExitFailed, err)
	}
	switch {
	case res.Cancelled && o.Duration != "":
		return withCode(exitInterrupted, fmt.Errorf("interrupted after %d calls", res.Successes+res.Failures))
	case res.Cancelled:
		return withCode(exitInterrupted, fmt.Errorf("interrupted after %d of %d calls", res.Successes+res.Failures, o.NumberOfTests))
	case res.Failures > 0:
		return withCode(freonExitFailed, errors.New(freon.MsgTestFailed))
	}
	return nil
}

func (f *dnEchoFlags) datanodeOptions() (datanode.Options, error) {
	o := datanode.Options{Timeout: f.deadline, NoRetry: f.noRetry}
	switch f.stream {
	case "new", string(datanode.StreamPerRequest):
		o.Streams = datanode.StreamPerRequest
	case "reuse", string(datanode.StreamReused):
		o.Streams = datanode.StreamReused
	default:
		return o, fmt.Errorf("--stream %q: use new or reuse", f.stream)
	}
	if f.target == "" {
		return o, errors.New("--target is empty: use first, all, or a DataNode uuid or host")
	}
	o.Target = datanode.Target(f.target)
	return o, nil
}

func parseLookup(s string) (scm.LookupMode, error) {
	switch s {
	case "freon":
		return scm.LookupFreon, nil
	case "single":
		return scm.LookupWithPipeline, nil
	}
	return 0, fmt.Errorf("--lookup %q: use freon or single", s)
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
