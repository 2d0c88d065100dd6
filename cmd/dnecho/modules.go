package main

import (
	"context"
	"log/slog"

	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules/k6summary"
	"github.com/dnecho/dnecho/engine/remote"
)

// remoteModules returns what https:// imports of `dnecho run`, `archive` and `inspect` come
// from: the network through the module cache, with dnecho's own k6-summary standing in for
// jslib's when neither has it.
func remoteModules(log *slog.Logger) js.RemoteModules {
	f, err := remote.New(remote.Options{
		Builtins: []remote.Builtin{{
			Match:       k6summary.Matches,
			Source:      []byte(k6summary.Source),
			Description: "dnecho's built-in textSummary and jUnit",
		}},
		Notice: func(msg string) { log.Warn(msg) },
	})
	if err != nil {
		return unavailable{err}
	}
	return f
}

// unavailable is the RemoteModules of a machine without a module cache directory.
type unavailable struct{ err error }

func (u unavailable) Module(context.Context, string) ([]byte, error) { return nil, u.err }
