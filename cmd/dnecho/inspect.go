package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// inspectFlags are the flags of `dnecho inspect`: k6's runtime option flags and its root flags.
type inspectFlags struct {
	env                        []string
	includeSystemEnv, execReqs bool
	compatibilityMode, config  string
	logOutput, logFormat       string
	quiet, verbose, noColor    bool
}

func newInspectCommand(sig *signals, s streams) *cobra.Command {
	f := &inspectFlags{}
	cmd := &cobra.Command{
		Use:   "inspect [flags] SCRIPT|ARCHIVE",
		Short: "Print a test's options as JSON",
		Long: `Print the options of a script or archive as JSON on stdout, as k6 inspect does: the script's
own options, or with --execution-requirements the options consolidated with the config file and
K6_* variables (flags other than these are not applied), the derived scenarios, and
totalDuration and maxVUs, the plan's duration including graceful stops and its peak of VUs
(what k6-operator reads). Logs go to stderr: stdout holds the JSON alone.`,
		Example: `  dnecho inspect --execution-requirements script.js
  dnecho inspect archive.tar`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return inspectScript(cmd, sig, s, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.BoolVar(&f.execReqs, "execution-requirements", false, "add the consolidated options, totalDuration and maxVUs")
	fl.StringArrayVarP(&f.env, "env", "e", nil, "set __ENV variable NAME=VALUE, repeatable")
	fl.BoolVar(&f.includeSystemEnv, "include-system-env-vars", false, "pass the system environment to the script's __ENV")
	fl.StringVar(&f.compatibilityMode, "compatibility-mode", options.DefaultCompatibilityMode, "JavaScript compatibility mode: extended or base")
	fl.StringVarP(&f.config, "config", "c", "", "JSON config file (also K6_CONFIG)")
	fl.StringVar(&f.logOutput, "log-output", "stderr", "where logs go: stderr, stdout, none or file=PATH[,level=LEVEL]")
	fl.StringVar(&f.logFormat, "log-format", "", "log format: text (default), json or raw")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "accepted for k6 compatibility; inspect prints no progress anyway")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "debug logging")
	fl.BoolVar(&f.noColor, "no-color", false, "no ANSI colours")
	return cmd
}

// layers are the config file and environment layers, plus the runtime flags (which never reach
// the options inspect prints).
func (f *inspectFlags) layers(cmd *cobra.Command, env map[string]string) (options.Layers, error) {
	var l options.Layers
	var err error
	if l.Env, err = options.FromEnv(env); err != nil {
		return l, err
	}
	if l.ConfigFile, err = configFileLayer(f.config, env); err != nil {
		return l, err
	}
	set := cmd.Flags().Changed
	setChanged(set, []flagValue[string]{
		{"compatibility-mode", &l.CLI.CompatibilityMode, f.compatibilityMode},
		{"log-output", &l.CLI.LogOutput, f.logOutput},
		{"log-format", &l.CLI.LogFormat, f.logFormat},
	})
	setChanged(set, []flagValue[bool]{
		{"include-system-env-vars", &l.CLI.IncludeSystemEnvVars, f.includeSystemEnv},
		{"no-color", &l.CLI.NoColor, f.noColor},
	})
	return l, nil
}

// inspectScript is `dnecho inspect`.
func inspectScript(cmd *cobra.Command, sig *signals, s streams, f *inspectFlags, script string) error {
	layers, err := f.layers(cmd, environ())
	if err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	insp, _, err := inspectTest(sig, s, script, layers, f.env, f.verbose)
	if err != nil {
		return err
	}
	doc, err := inspectDocument(insp, f.execReqs)
	if err != nil {
		return withCode(exitcode.Failure, err)
	}
	// One JSON value, 2-space indents, no HTML escaping, as k6 prints it.
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return withCode(exitcode.Failure, err)
	}
	return nil
}

// inspectDocument is what inspect prints: every option key (unset ones null) over the script's
// own keys (so `cloud`, `ext` and the like pass through); with the execution requirements, the
// consolidated options with the derived scenarios, totalDuration and maxVUs.
func inspectDocument(insp *runner.Inspection, execReqs bool) (map[string]any, error) {
	doc := map[string]any{}
	if err := json.Unmarshal(insp.ScriptOptions, &doc); err != nil {
		return nil, fmt.Errorf("script options: %w", err)
	}
	opts, err := options.FromScript(insp.ScriptOptions)
	if err != nil {
		return nil, err
	}
	if execReqs {
		opts = insp.Options.Options
	}
	if err := overlay(doc, opts); err != nil {
		return nil, err
	}
	if execReqs {
		scenarios := map[string]scenario.Config{}
		for _, sc := range insp.Options.Scenarios {
			scenarios[sc.Base().Name] = sc
		}
		doc["scenarios"] = scenarios
		doc["totalDuration"] = insp.Requirements.TotalDuration.String()
		doc["maxVUs"] = insp.Requirements.MaxVUs
	}
	return doc, nil
}

// overlay writes the options into doc under their k6 keys.
func overlay(doc map[string]any, o options.Options) error {
	b, err := o.MarshalJSON() // json.Marshal would HTML-escape it
	if err != nil {
		return err
	}
	var known map[string]json.RawMessage
	if err := json.Unmarshal(b, &known); err != nil {
		return err
	}
	for k, v := range known {
		doc[k] = v
	}
	return nil
}
