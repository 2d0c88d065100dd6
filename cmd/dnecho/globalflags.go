package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// k6 defines some flags on its root command, so they may come before the command name:
// `k6 --quiet run script.js` (grafana/k6 internal/cmd/root.go). dnecho keeps them on the commands
// that use them, and moves them there from before the command name.

// globalFlags are k6's root flags, by every name they are written with, and whether they take
// a value.
var globalFlags = map[string]bool{
	"-q": false, "--quiet": false, "-v": false, "--verbose": false, "--no-color": false,
	"--log-format": true, "--log-output": true, "-c": true, "--config": true, "-a": true, "--address": true,
}

// hoistingCommands are the commands that accept the global flags.
var hoistingCommands = map[string]bool{"run": true, "archive": true, "inspect": true}

// rootValueFlags are dnecho's own root flags that take a value, so that their value is not taken
// for the command name.
var rootValueFlags = map[string]bool{"--cpuprofile": true}

// hoistGlobalFlags moves the global flags given before the command name to just after it, when
// the command accepts them. Anything else is returned unchanged.
func hoistGlobalFlags(args []string) []string {
	var before, global []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			if !hoistingCommands[a] || len(global) == 0 {
				return args
			}
			out := append(append(append(append([]string{}, before...), a), global...), args[i+1:]...)
			return out
		}
		name, _, hasValue := strings.Cut(a, "=")
		takesValue, isGlobal := globalFlags[name]
		if !isGlobal {
			takesValue = rootValueFlags[name]
		}
		n := 1
		if takesValue && !hasValue && i+1 < len(args) {
			n = 2
		}
		if isGlobal {
			global = append(global, args[i:i+n]...)
		} else {
			before = append(before, args[i:i+n]...)
		}
		i += n - 1
	}
	return args
}

// addRootGlobalFlags defines k6's root flags on the root command too, so that they are accepted
// where no command follows to take them (`dnecho --quiet --help`, `dnecho -v`, which prints the
// help as `k6 -v` does); hoistGlobalFlags hands them to run, archive and inspect. On the root they
// do nothing.
func addRootGlobalFlags(fl *pflag.FlagSet) {
	const where = " (with run, archive, inspect)"
	fl.BoolP("quiet", "q", false, "no run header and no progress display"+where)
	fl.BoolP("verbose", "v", false, "debug logging"+where)
	fl.Bool("no-color", false, "no ANSI colours"+where)
	fl.String("log-format", "", "log format: text (default), json or raw"+where)
	fl.String("log-output", "stderr", "where logs go: stderr, stdout, none or file=PATH[,level=LEVEL]"+where)
	fl.StringP("config", "c", "", "JSON config file (also K6_CONFIG)"+where)
	fl.StringP("address", "a", "", "serve k6's REST API on host:port (with run)")
}
