package main

import "strings"

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
