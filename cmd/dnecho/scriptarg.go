package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dnecho/dnecho/engine/archive"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/runner"
)

// scriptArg is the SCRIPT argument a command was given, read: a script file, a script on stdin
// ("-"), or an archive (either way; k6 tells them apart by content too).
type scriptArg struct {
	script string
	source []byte // nil: read script from disk
	arc    *archive.Archive
}

// readScriptArg reads the SCRIPT argument of run, archive and inspect.
func readScriptArg(arg string, stdin io.Reader) (*scriptArg, error) {
	var data []byte
	var err error
	if arg == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(arg)
	}
	if err != nil {
		return nil, fmt.Errorf("read the script: %w", err)
	}
	if !archive.IsArchive(data) {
		if archive.LooksLikeTar(data) || strings.HasSuffix(strings.ToLower(arg), ".tar") {
			return nil, fmt.Errorf("%s: %w: a tar file whose first entry is not %s (make one with dnecho archive)", arg, archive.ErrNotArchive, archive.MetadataName)
		}
		return &scriptArg{script: arg, source: data}, nil
	}
	arc, err := archive.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return &scriptArg{script: arc.MainPath(), source: arc.Data, arc: arc}, nil
}

// env is __ENV: the system environment when included, then the archive's variables, then -e.
func (ts *scriptArg) env(sysEnv map[string]string, includeSystem bool, flags []string) (map[string]string, error) {
	env := map[string]string{}
	if includeSystem {
		for k, v := range sysEnv {
			env[k] = v
		}
	}
	if ts.arc != nil {
		for k, v := range ts.arc.Env {
			env[k] = v
		}
	}
	for _, kv := range flags {
		k, v, err := options.ParseEnvVar(kv)
		if err != nil {
			return nil, &options.Error{Option: "--env", Err: err}
		}
		env[k] = v
	}
	return env, nil
}

// configure points a runner configuration at the test. An archive brings its files and remote
// modules (the network is not used), its options in place of the script's, and its
// compatibility mode unless the environment or a flag sets one.
func (ts *scriptArg) configure(cfg *runner.Config) {
	cfg.Script, cfg.Source = ts.script, ts.source
	if ts.arc == nil {
		return
	}
	cfg.Files, cfg.Remote, cfg.ScriptOptions = ts.arc, ts.arc, ts.arc.Options
	if m := ts.arc.CompatibilityMode; m != "" && !cfg.Layers.Env.CompatibilityMode.Valid && !cfg.Layers.CLI.CompatibilityMode.Valid {
		cfg.Layers.ConfigFile.CompatibilityMode = null.From(m)
	}
}
