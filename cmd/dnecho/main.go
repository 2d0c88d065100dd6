// Command dnecho measures client-to-DataNode Echo latency on Apache Ozone: freon-compatible
// (`dnecho freon dn-echo`), scriptable with k6-style scenarios (`dnecho run`), and self-contained
// (`dnecho cluster` starts an emulated SCM + DataNodes on 127.0.0.1).
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/output/otlp"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/internal/heapfloor"
)

func main() {
	otlp.Version, _ = dnechoVersion()
	// Every command is a load tool, a server under one or a short-lived helper: none should pay
	// for collections of a heap of a few MB (internal/heapfloor). GOGC in the environment wins.
	stopFloor := heapfloor.Start(heapfloor.DefaultFloor)
	sig := watchSignals()
	code := execute(sig, streams{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:])
	sig.stop()
	stopFloor()
	os.Exit(code)
}

// execute runs the command line and returns the process exit code.
func execute(sig *signals, s streams, args []string) int {
	root := newRootCommand(sig, s)
	root.SetArgs(hoistGlobalFlags(args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(s.err, "error:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(s.err, "error:", err)
	return usageCode(cmd) // unknown flag, bad value, wrong arguments (cobra)
}

// k6Command marks the commands k6 has (run, archive, inspect, version), whose command-line
// errors exit as k6's do.
const k6Command = "k6"

// usageCode is the exit code of a command line cobra refused: k6's -1 (255) for k6's commands,
// as k6 exits -1 for any error without a code of its own; exitcode.Usage for dnecho's own (freon,
// cluster, aggregate, the root).
func usageCode(cmd *cobra.Command) int {
	if cmd != nil && cmd.Annotations[k6Command] != "" {
		return exitcode.Failure
	}
	return exitcode.Usage
}

// asK6Command marks cmd as one of k6's commands (see usageCode).
func asK6Command(cmd *cobra.Command) *cobra.Command {
	cmd.Annotations = map[string]string{k6Command: "true"}
	return cmd
}

func newRootCommand(sig *signals, s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "dnecho",
		Short: "Measure client-to-DataNode Echo round-trip latency on Apache Ozone",
		Long: `dnecho sends Echo RPCs to the DataNodes of an Ozone container's pipeline and reports latency.

  dnecho cluster                       start an emulated Ozone cluster (SCM + 3 DataNodes) on 127.0.0.1
  dnecho freon dn-echo --container-id 1 -n 100000 -t 32
                                       the 'ozone freon dn-echo' report, with exact percentiles
  dnecho run script.js                 run a k6-style scenario script (import dnecho from 'k6/x/dnecho')

Point dnecho at a cluster with --conf DIR (or OZONE_CONF_DIR) holding ozone-site.xml, or --scm host:port.
How dnecho uses memory and the garbage collector: dnecho help gc.`,
		Version:       "set", // cobra adds --version only when this is set; the template prints versionLine
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	var cpuProfile, memProfile string
	var stopProfile func()
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of the command to this file")
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a Go allocation profile of the command to this file")
	addRootGlobalFlags(root.Flags())
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	_ = root.PersistentFlags().MarkHidden("memprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		stop, err := startProfiles(cpuProfile, memProfile)
		stopProfile = stop
		return err
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if stopProfile != nil {
			stopProfile()
		}
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(newClusterCommand(sig, s))
	root.AddCommand(newFreonCommand(sig, s))
	root.AddCommand(asK6Command(newRunCommand(sig, s)))
	root.AddCommand(newAggregateCommand(sig, s))
	applyProgName(root, filepath.Base(os.Args[0]))
	root.AddCommand(asK6Command(newVersionCommand(s)))
	root.AddCommand(newGCHelpTopic())
	root.AddCommand(asK6Command(newArchiveCommand(sig, s)))
	root.AddCommand(asK6Command(newInspectCommand(sig, s)))
	root.SetVersionTemplate(versionLine() + "\n")
	return root
}
