package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/archive"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/engine/threshold"
	"github.com/dnecho/dnecho/internal/exitcode"
	dnechoext "github.com/dnecho/dnecho/xdnecho"
)

// DefaultArchiveOut is where `dnecho archive` writes without -O.
const DefaultArchiveOut = "archive.tar"

func newArchiveCommand(sig *signals, s streams) *cobra.Command {
	run, f := newRunCommandFlags(sig, s)
	var out string
	var excludeEnv bool
	cmd := &cobra.Command{
		Use:   "archive [flags] SCRIPT",
		Short: "Bundle a script, its imports, open() files and options into a tar",
		Long: `Bundle a test into an archive in k6's format (k6 archive): metadata.json with the options
(the script's, the config file's, K6_* variables and the flags, merged), the main script, every
local file it imports or open()s and every https:// module it imports. 'dnecho run ARCHIVE.tar'
and 'dnecho inspect ARCHIVE.tar' read it; it runs without the original files or the network.

The script's init context runs once; a dnecho.Client does not contact its cluster here.
Nothing is written to stdout unless -O is '-'.`,
		Example: `  dnecho archive -O test.tar -e DURATION=5m script.js
  dnecho run test.tar`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return archiveScript(cmd, sig, s, f, args[0], out, excludeEnv)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&out, "archive-out", "O", DefaultArchiveOut, "archive file to write ('-' is stdout)")
	fl.BoolVar(&excludeEnv, "exclude-env-vars", false, "do not store the environment variables (-e) in the archive")
	fl.AddFlagSet(run.Flags())
	// run's own flags act on a run alone: archive does not list them, but accepts them, since
	// k6-operator hands a TestRun's arguments to archive as well as to run, less only the few run
	// flags of k6 it knows (docs/k6-compat.md#k6-operator).
	for _, name := range runOnlyFlags {
		_ = fl.MarkHidden(name)
	}
	// An archive stores only the variables given with -e unless asked (k6's default for archive).
	f.includeSystemEnv = false
	fl.Lookup("include-system-env-vars").DefValue = "false"
	return cmd
}

// archiveScript is `dnecho archive`.
func archiveScript(cmd *cobra.Command, sig *signals, s streams, f *runFlags, script, out string, excludeEnv bool) error {
	layers, err := f.layers(cmd, environ())
	if err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	insp, env, err := inspectTest(sig, s, script, layers, f.env, f.verbose)
	if err != nil {
		return err
	}
	if err := checkThresholds(insp); err != nil {
		return err
	}
	opts, err := archiveOptions(insp)
	if err != nil {
		return withCode(exitcode.Failure, err)
	}
	pwd, _ := os.Getwd()
	arc := &archive.Archive{
		Type: "js", Options: opts, Filename: archive.FileURL(insp.Main), Pwd: archive.FileURL(pwd),
		Env: env, CompatibilityMode: insp.Options.CompatibilityModeValue(), K6Version: version, Goos: runtime.GOOS,
		Files: map[string][]byte{},
	}
	if excludeEnv {
		arc.Env = map[string]string{}
	}
	for _, file := range insp.Files {
		arc.Files[file.Name] = file.Data
	}
	arc.Data = arc.Files[insp.Main]
	return writeArchive(arc, out, s)
}

// checkThresholds refuses, as k6 archive does, thresholds that a run would refuse: malformed,
// on a metric neither built in nor registered by the init context, or with an aggregation the
// metric's type does not have.
func checkThresholds(insp *runner.Inspection) error {
	o := insp.Options
	if o.NoThresholds.V || len(o.Thresholds) == 0 {
		return nil
	}
	if _, _, err := threshold.New(o.Thresholds, insp.Metrics); err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	return nil
}

// archiveOptions are the merged options as JSON, with the script's `cloud` object, which dnecho
// does not use but k6-operator and k6 read from an archive.
func archiveOptions(insp *runner.Inspection) ([]byte, error) {
	opts, err := insp.Merged.MarshalJSON() // json.Marshal would HTML-escape it
	if err != nil {
		return nil, err
	}
	var script struct {
		Cloud json.RawMessage `json:"cloud"`
	}
	if len(insp.ScriptOptions) == 0 || json.Unmarshal(insp.ScriptOptions, &script) != nil ||
		len(script.Cloud) == 0 || string(script.Cloud) == "null" {
		return opts, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, script.Cloud); err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(bytes.TrimSpace(opts), []byte("}"))
	sep := ","
	if bytes.Equal(bytes.TrimSpace(body), []byte("{")) {
		sep = ""
	}
	return append(append(body, sep+`"cloud":`...), append(b.Bytes(), '}')...), nil
}

// writeArchive writes the tar to a file, or to stdout for "-".
func writeArchive(arc *archive.Archive, out string, s streams) error {
	var b bytes.Buffer
	if err := arc.Write(&b); err != nil {
		return withCode(exitcode.Failure, fmt.Errorf("archive: %w", err))
	}
	var err error
	if out == "-" {
		_, err = s.out.Write(b.Bytes())
	} else {
		err = os.WriteFile(out, b.Bytes(), 0o644)
	}
	if err != nil {
		return withCode(exitcode.Failure, fmt.Errorf("archive: %w", err))
	}
	return nil
}

// inspectTest loads a test (script or archive) for archive and inspect: the init context runs
// once, with a dnecho module that does not contact any cluster, and logs as the layers say. It
// returns the test and its __ENV; errors carry their exit code.
func inspectTest(sig *signals, s streams, script string, layers options.Layers, envFlags []string,
	verbose bool) (*runner.Inspection, map[string]string, error) {
	pre, _ := layers.Merge()
	cl, err := newCommandLog(pre, verbose, s, nil)
	if err != nil {
		return nil, nil, withCode(exitcode.InvalidConfig, err)
	}
	defer cl.close()
	test, err := readScriptArg(script, s.in)
	if err != nil {
		return nil, nil, withCode(exitcode.Failure, err)
	}
	env, err := test.env(environ(), pre.IncludeSystemEnvVars.ValueOr(false), envFlags)
	if err != nil {
		return nil, nil, withCode(exitcode.InvalidConfig, err)
	}
	cfg := runner.Config{
		Layers: layers, Env: env, SystemEnv: environ(), Logger: cl.log,
		Remote:  remoteModules(cl.log),
		Modules: map[string]modules.Factory{dnechoext.ImportPath: dnechoext.Factory(dnechoext.Defaults{Dry: true})},
	}
	test.configure(&cfg)
	insp, err := runner.Inspect(sig.soft, cfg)
	if err != nil {
		return nil, nil, withCode(runner.ExitCode(err), err)
	}
	return insp, env, nil
}
