package js

import (
	"context"
	"log/slog"
	"strings"

	"github.com/dop251/goja"
)

// newConsole builds the `console` object: each method logs its arguments, joined by spaces, at
// the matching level with source=console, to the consoleOutput logger when there is one.
func newConsole(vu *VU) *goja.Object {
	obj := vu.rt.NewObject()
	for name, level := range map[string]slog.Level{
		"log": slog.LevelInfo, "info": slog.LevelInfo, "debug": slog.LevelDebug,
		"warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		_ = obj.Set(name, func(call goja.FunctionCall) goja.Value {
			logger := vu.r.test.Logger
			if vu.r.console != nil {
				logger = vu.r.console
			}
			if !logger.Enabled(context.Background(), level) {
				return goja.Undefined()
			}
			logger.Log(context.Background(), level, vu.formatArgs(call.Arguments), "source", "console")
			return goja.Undefined()
		})
	}
	return obj
}

// formatArgs renders console arguments as k6 does (formatConsoleValue), joined by spaces.
func (vu *VU) formatArgs(args []goja.Value) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(formatConsoleValue(vu.rt, a))
	}
	return b.String()
}
