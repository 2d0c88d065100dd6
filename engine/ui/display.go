package ui

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Redraw periods of the progress display (docs/k6-compat.md#progress-display). A
// terminal is redrawn in place; elsewhere (a file, a CI log) a block is appended, so
// its period is longer to keep logs modest.
const (
	TTYInterval    = 100 * time.Millisecond
	NonTTYInterval = 2 * time.Second
)

// Source provides the live state of the run.
type Source interface {
	Snapshot() Snapshot
}

// SourceFunc adapts a function to Source.
type SourceFunc func() Snapshot

// Snapshot calls f.
func (f SourceFunc) Snapshot() Snapshot { return f() }

// Options configures a Display.
type Options struct {
	// Out receives the header and the progress display (stdout in the CLI).
	Out io.Writer
	// TTY says Out is a terminal: progress is then redrawn in place.
	TTY bool
	// Width returns the terminal width; nil or 0 means unknown.
	Width func() int
	// Quiet turns the header into a debug log line and the progress display off (-q).
	Quiet bool
	// Color allows ANSI colours.
	Color bool
	// Logger receives the header when Quiet; nil discards it.
	Logger *slog.Logger
	// Interval overrides the redraw period (0: TTYInterval or NonTTYInterval).
	Interval time.Duration
}

// Display shows a run: the header once, then the progress until stopped. Its methods are safe
// for concurrent use; log lines written through LogWriter appear above a terminal's progress.
type Display struct {
	o Options

	mu    sync.Mutex
	drawn int // progress lines on screen (TTY)
}

// New returns a display.
func New(o Options) *Display {
	if o.Interval <= 0 {
		o.Interval = NonTTYInterval
		if o.TTY {
			o.Interval = TTYInterval
		}
	}
	return &Display{o: o}
}

// SetLogger sets the logger that receives the header when quiet. It exists because the logger
// usually writes through LogWriter, so it can only be built after the display.
func (d *Display) SetLogger(l *slog.Logger) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.o.Logger = l
}

// Header shows the run header, or logs it at debug level when quiet.
func (d *Display) Header(h Header) {
	d.mu.Lock()
	log := d.o.Logger
	d.mu.Unlock()
	if d.o.Quiet {
		if log != nil {
			var b strings.Builder
			_ = h.Render(&b, false)
			log.Debug(strings.TrimSpace(b.String()))
		}
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = h.Render(d.o.Out, d.o.Color)
}

// StartProgress draws src until the returned stop function is called; stop draws the final state
// and returns once the drawing goroutine has ended. With Quiet it does nothing.
func (d *Display) StartProgress(src Source) (stop func()) {
	if d.o.Quiet || src == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(d.o.Interval)
		defer t.Stop()
		d.draw(src.Snapshot())
		for {
			select {
			case <-t.C:
				d.draw(src.Snapshot())
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
			d.draw(src.Snapshot())
			d.mu.Lock()
			d.drawn = 0 // the final state stays on screen
			d.mu.Unlock()
		})
	}
}

// draw writes one progress block: in place on a terminal, appended elsewhere.
func (d *Display) draw(s Snapshot) {
	width := 0
	if d.o.TTY && d.o.Width != nil {
		width = d.o.Width()
	}
	lines := renderLines(s, width, d.o.Color)
	var b bytes.Buffer
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.o.TTY {
		d.eraseLocked(&b)
		d.drawn = len(lines)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if !d.o.TTY {
		b.WriteByte('\n')
	}
	_, _ = d.o.Out.Write(b.Bytes())
}

// eraseLocked appends to b the escape codes that remove the drawn block: cursor up, clear to the
// end of the screen.
func (d *Display) eraseLocked(b *bytes.Buffer) {
	if d.drawn > 0 {
		fmt.Fprintf(b, "\x1b[%dA\x1b[J", d.drawn)
	}
	d.drawn = 0
}

// LogWriter wraps w (the log's stream) so that, on a terminal, each log write first removes the
// progress block, which the next redraw puts back below the log line.
func (d *Display) LogWriter(w io.Writer) io.Writer {
	if !d.o.TTY || d.o.Quiet {
		return w
	}
	return &logWriter{d: d, w: w}
}

type logWriter struct {
	d *Display
	w io.Writer
}

// Write implements io.Writer.
func (l *logWriter) Write(p []byte) (int, error) {
	l.d.mu.Lock()
	defer l.d.mu.Unlock()
	if l.d.drawn > 0 {
		var b bytes.Buffer
		l.d.eraseLocked(&b)
		_, _ = l.d.o.Out.Write(b.Bytes())
	}
	return l.w.Write(p)
}
