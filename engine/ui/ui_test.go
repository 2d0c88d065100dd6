package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/executor"
)

func TestHeader(t *testing.T) {
	h := Header{
		Script: "echo.js", Segment: 100, MaxVUs: 10, MaxDuration: 40 * time.Second,
		Scenarios: []ScenarioLine{{"default", "10 looping VUs for 10s (gracefulStop: 30s)"}},
	}
	var b bytes.Buffer
	if err := h.Render(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `
     execution: local
        script: echo.js
        output: -

     scenarios: (100.00%) 1 scenario, 10 max VUs, 40s max duration (incl. graceful stop):
              * default: 10 looping VUs for 10s (gracefulStop: 30s)

`
	if b.String() != want {
		t.Errorf("header:\n%s\nwant:\n%s", b.String(), want)
	}
	h.Outputs = []string{"json (a.json)", "csv (b.csv)"}
	h.Scenarios = append(h.Scenarios, ScenarioLine{"b", "x"})
	b.Reset()
	_ = h.Render(&b, false)
	for _, s := range []string{"output: json (a.json), csv (b.csv)", "2 scenarios,", "* b: x"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("header lacks %q:\n%s", s, b.String())
		}
	}
}

func TestProgressLines(t *testing.T) {
	s := Snapshot{
		Instance: execinfo.InstanceStats{VUsActive: 7, IterationsCompleted: 1234, IterationsInterrupted: 5,
			CurrentTestRunDuration: 83*time.Second + 400*time.Millisecond},
		MaxVUs: 100, MaxDuration: 2 * time.Minute,
		Scenarios: []executor.ScenarioProgress{
			{Name: "default", Status: executor.StatusRunning, Fraction: 0.5, Right: []string{"10 VUs", "0m05.0s/10s"}},
			{Name: strings.Repeat("x", 40), Status: executor.StatusDone, Fraction: 1, Right: []string{"done"}},
		},
	}
	lines := renderLines(s, 0, false)
	if lines[0] != "running (1m23.4s), 007/100 VUs, 1234 complete and 5 interrupted iterations" {
		t.Errorf("top line %q", lines[0])
	}
	name := strings.Repeat("x", 27) + "..."
	want1 := "default" + strings.Repeat(" ", 23) + "   [" + strings.Repeat("=", 19) + ">" + strings.Repeat("-", 20) + "] 10 VUs  0m05.0s/10s"
	if lines[1] != want1 {
		t.Errorf("running line\n got %q\nwant %q", lines[1], want1)
	}
	if want2 := name + " ✓ [" + strings.Repeat("=", 40) + "] done"; lines[2] != want2 {
		t.Errorf("done line\n got %q\nwant %q", lines[2], want2)
	}
	// A narrow terminal shrinks the bar, down to a percentage.
	narrow := renderLines(s, 50, false)
	if !strings.Contains(narrow[1], "[  50% ]") {
		t.Errorf("narrow line %q", narrow[1])
	}
}

func TestBar(t *testing.T) {
	cases := []struct {
		f    float64
		size int
		want string
	}{
		{0, 10, "[----------]"},
		{0.05, 10, "[----------]"},
		{0.5, 10, "[====>-----]"},
		{1, 10, "[==========]"},
		{1.5, 10, "[==========]"},
		{0.42, 5, "[  42% ]"},
	}
	for _, c := range cases {
		if got := bar(c.f, c.size); got != c.want {
			t.Errorf("bar(%v, %d) = %q, want %q", c.f, c.size, got, c.want)
		}
	}
}

func snapshotSource(completed *int64, mu *sync.Mutex) Source {
	return SourceFunc(func() Snapshot {
		mu.Lock()
		defer mu.Unlock()
		return Snapshot{
			Instance:  execinfo.InstanceStats{IterationsCompleted: *completed},
			Scenarios: []executor.ScenarioProgress{{Name: "s", Status: executor.StatusRunning}},
			MaxVUs:    1, MaxDuration: time.Minute,
		}
	})
}

// The display tests run in synctest bubbles: the redraw ticker runs on virtual time, so the
// number of periodic redraws is exact.

func TestDisplayAppendsBlocksWithoutTTY(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		d := New(Options{Out: &out, Interval: 10 * time.Millisecond})
		var mu sync.Mutex
		n := int64(0)
		stop := d.StartProgress(snapshotSource(&n, &mu))
		time.Sleep(35 * time.Millisecond) // redraws at 10, 20 and 30 ms
		mu.Lock()
		n = 42
		mu.Unlock()
		stop()
		stop() // idempotent
		got := out.String()
		if strings.Contains(got, "\x1b[") {
			t.Errorf("escape codes without a TTY: %q", got)
		}
		if blocks := strings.Count(got, "running ("); blocks != 5 {
			t.Errorf("%d blocks, want the first, 3 periodic ones and the final one:\n%s", blocks, got)
		}
		if !strings.HasSuffix(got, "running (0m00.0s), 0/1 VUs, 42 complete and 0 interrupted iterations\ns   [----------------------------------------] \n\n") {
			t.Errorf("final block missing or wrong:\n%q", got)
		}
	})
}

func TestDisplayRedrawsOnTTYAndKeepsLogsAbove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		d := New(Options{Out: &out, TTY: true, Interval: time.Hour, Width: func() int { return 120 }})
		var mu sync.Mutex
		n := int64(0)
		stop := d.StartProgress(snapshotSource(&n, &mu))
		// The first block is drawn at once: wait until the drawing goroutine is idle.
		synctest.Wait()
		if !strings.Contains(out.String(), "running (") {
			t.Fatalf("no first block: %q", out.String())
		}
		// A log line then erases it (2 lines: cursor up, clear).
		lw := d.LogWriter(&out)
		_, _ = lw.Write([]byte("a log line\n"))
		stop()
		got := out.String()
		erase := "\x1b[2A\x1b[J"
		i := strings.Index(got, erase+"a log line\n")
		if i < 0 {
			t.Fatalf("the log line did not erase the progress block first: %q", got)
		}
		// stop redraws below the log line, and nothing erases it afterwards.
		rest := got[i+len(erase)+len("a log line\n"):]
		if !strings.HasPrefix(rest, "running (") || strings.Contains(rest, "\x1b[") {
			t.Errorf("after the log line: %q", rest)
		}
	})
}

func TestQuietDisplay(t *testing.T) {
	var out, logs bytes.Buffer
	d := New(Options{Out: &out, Quiet: true})
	d.SetLogger(slog.New(NewLogHandler(&logs, LogOptions{Format: LogRaw, Level: slog.LevelDebug})))
	d.Header(Header{Script: "x.js", Segment: 100})
	stop := d.StartProgress(SourceFunc(func() Snapshot { return Snapshot{} }))
	stop()
	if out.Len() != 0 {
		t.Errorf("quiet display wrote %q", out.String())
	}
	if !strings.Contains(logs.String(), "script: x.js") {
		t.Errorf("quiet header not in the debug log: %q", logs.String())
	}
	if w := d.LogWriter(&logs); w != &logs {
		t.Error("quiet LogWriter should not wrap")
	}
}

func TestLogFormats(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	rec := slog.NewRecord(at, slog.LevelWarn, "hello world", 0)
	rec.AddAttrs(slog.String("source", "console"), slog.Int("vu", 3))
	cases := []struct {
		o    LogOptions
		want string
	}{
		{LogOptions{Format: LogRaw}, "hello world\n"},
		{LogOptions{Format: "text"}, `time="2026-03-04T05:06:07Z" level=warning msg="hello world" source=console vu=3` + "\n"},
		{LogOptions{Format: "anything", Color: true, Start: at.Add(-3 * time.Second)}, "\x1b[33mWARN\x1b[0m[0003] hello world" + strings.Repeat(" ", 33) + " source=console vu=3\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := NewLogHandler(&b, c.o).Handle(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.o, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	l := slog.New(NewLogHandler(&b, LogOptions{Format: LogJSON}))
	l.With("scenario", "s").Info("hi", "n", 1)
	l.Debug("hidden")
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["msg"] != "hi" || m["scenario"] != "s" {
		t.Errorf("json log %q: %v", b.String(), err)
	}
	b.Reset()
	slog.New(NewLogHandler(&b, LogOptions{})).WithGroup("g").With("a", "x y").Info("m", "b", 2)
	if !strings.HasSuffix(b.String(), `msg=m g.a="x y" g.b=2`+"\n") {
		t.Errorf("text attrs: %q", b.String())
	}
}

// syncBuffer is a goroutine-safe buffer for log output.
type syncBuffer = testkit.SyncBuffer
