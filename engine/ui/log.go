package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Log formats of --log-format (docs/k6-compat.md#cli): json is structured JSON, raw is the message
// alone, and anything else is text.
const (
	LogJSON = "json"
	LogRaw  = "raw"
	LogText = "text"
)

// termMessageWidth is the message column of the terminal layout.
const termMessageWidth = 44

// LogOptions configures NewLogHandler.
type LogOptions struct {
	Format string
	Level  slog.Leveler
	// Color selects the terminal text layout "INFO[0003] message  k=v" with a coloured level;
	// without it, text lines are `time="…" level=info msg="…" k=v`.
	Color bool
	// Start is the origin of the terminal layout's seconds counter; zero means now.
	Start time.Time
}

// NewLogHandler returns a slog handler writing in the chosen format to w.
func NewLogHandler(w io.Writer, o LogOptions) slog.Handler {
	if o.Level == nil {
		o.Level = slog.LevelInfo
	}
	if o.Format == LogJSON {
		return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: o.Level})
	}
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	return &textHandler{w: w, o: o, mu: &sync.Mutex{}}
}

// textHandler writes the raw and text formats.
type textHandler struct {
	w     io.Writer
	o     LogOptions
	mu    *sync.Mutex
	attrs string // pre-rendered " k=v" of WithAttrs
	group string
}

// Enabled implements slog.Handler.
func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.o.Level.Level()
}

// Handle implements slog.Handler.
func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	switch {
	case h.o.Format == LogRaw:
		b.WriteString(r.Message)
	case h.o.Color:
		secs := int(r.Time.Sub(h.o.Start).Seconds())
		msg := r.Message
		if r.NumAttrs() > 0 || h.attrs != "" {
			// The message column is padded so that the attributes of short messages line up.
			msg = fmt.Sprintf("%-*s", termMessageWidth, msg)
		}
		fmt.Fprintf(&b, "%s[%04d] %s", paintLevel(r.Level), max(secs, 0), msg)
	default:
		fmt.Fprintf(&b, "time=%q level=%s msg=%s", r.Time.Format(time.RFC3339), levelName(r.Level), quote(r.Message))
	}
	if h.o.Format != LogRaw {
		b.WriteString(h.attrs)
		r.Attrs(func(a slog.Attr) bool {
			writeAttr(&b, h.group, a)
			return true
		})
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// WithAttrs implements slog.Handler.
func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range attrs {
		writeAttr(&b, h.group, a)
	}
	c.attrs = b.String()
	return &c
}

// WithGroup implements slog.Handler.
func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, ga := range a.Value.Group() {
			writeAttr(b, group+a.Key+".", ga)
		}
		return
	}
	fmt.Fprintf(b, " %s%s=%s", group, a.Key, quote(a.Value.String()))
}

// quote leaves simple values bare and quotes the rest, as logfmt does.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r\"=\\") {
		return s
	}
	return strconv.Quote(s)
}

func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}

// paintLevel is the four-letter coloured level of the terminal layout.
func paintLevel(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "\x1b[31mERRO" + ansiReset
	case l >= slog.LevelWarn:
		return "\x1b[33mWARN" + ansiReset
	case l >= slog.LevelInfo:
		return ansiCyan + "INFO" + ansiReset
	}
	return "\x1b[37mDEBU" + ansiReset
}
