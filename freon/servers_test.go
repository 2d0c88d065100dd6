package freon

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Each group's latencies are summarised apart, with Dropwizard's rule; tasks without a group are
// only in the run's statistics.
func TestGeneratorGroups(t *testing.T) {
	o := DefaultOptions()
	o.NumberOfTests, o.Threads, o.FailAtEnd = 300, 4, true
	var log bytes.Buffer
	g := Generator{
		Options: o, Prefix: "abc", Out: &bytes.Buffer{}, Log: NewLogWriter(&log, nil),
		Task: func(_ context.Context, id int) Outcome {
			switch id % 3 {
			case 0: // "a": 1..100 µs
				return Outcome{Server: "a", Latency: time.Duration(id/3+1) * time.Microsecond}
			case 1: // "b": 1 ms, every tenth failing
				out := Outcome{Server: "b", Latency: time.Millisecond}
				if id%10 == 1 {
					out.Err = errors.New("boom")
				}
				return out
			}
			return Outcome{Latency: time.Second}
		},
	}
	res, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Servers) != 2 {
		t.Fatalf("groups %+v", res.Servers)
	}
	a, b := res.Servers[0], res.Servers[1]
	if a.Server != "a" || a.Count != 100 || a.Failures != 0 || !a.Exact || a.Max != int64(100*time.Microsecond) {
		t.Errorf("group a: %+v", a)
	}
	// Dropwizard: position q·(n+1) = 50.5 → 50.5 µs; 0.99·101 = 99.99 → 99.99 µs.
	if a.Median != 50500 || a.P99 != 99990 {
		t.Errorf("group a: median %v p99 %v", a.Median, a.P99)
	}
	if b.Server != "b" || b.Count != 100 || b.Failures != 10 || b.Median != 1e6 {
		t.Errorf("group b: %+v", b)
	}
	if res.Latency.Count != 300 {
		t.Errorf("run count %d", res.Latency.Count)
	}
}

// Interrupted tasks are in no group, as they are in no other statistic; a failed one is.
func TestGroupsSkipInterrupted(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 1, NumberOfTests: 3, FailAtEnd: true},
		func(_ context.Context, id int) Outcome {
			return Outcome{Server: "a", Latency: time.Millisecond, Err: errors.New("cancelled"), Interrupted: id > 0}
		})
	if s := res.Servers; len(s) != 1 || s[0].Count != 1 || s[0].Failures != 1 || res.Interrupted != 1 {
		t.Errorf("groups %+v, %d interrupted", s, res.Interrupted)
	}
}

// Each worker keeps its own groups, merged at the end: 32 workers calling three groups in turn
// give each group every one of its calls, exactly.
func TestGroupsMergeWorkers(t *testing.T) {
	names := []string{"x", "y", "z"}
	res := mustRun(t, context.Background(), runConfig{Threads: 32, NumberOfTests: 3000},
		func(_ context.Context, id int) Outcome {
			return Outcome{Server: names[id%3], Latency: time.Duration(id/3+1) * time.Microsecond}
		})
	if len(res.Servers) != 3 {
		t.Fatalf("groups %+v", res.Servers)
	}
	for i, g := range res.Servers {
		// Each group holds 1..1000 µs once each: Dropwizard's median is at 500.5.
		if g.Server != names[i] || g.Count != 1000 || !g.Exact || g.Median != 500500 || g.Max != int64(1000*time.Microsecond) {
			t.Errorf("group %d: %+v", i, g)
		}
	}
}

// consoleAndLog runs g with the console report and then with the log report and returns what
// each wrote (Out, then the log); g's Out and Log are set here.
func consoleAndLog(t *testing.T, g Generator) (console, log string) {
	t.Helper()
	for _, interactive := range []bool{true, false} {
		var out, lw bytes.Buffer
		g.Interactive, g.Out, g.Log = interactive, &out, NewLogWriter(&lw, nil)
		if _, err := g.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if interactive {
			console = out.String()
			continue
		}
		if out.Len() != 0 {
			t.Errorf("log mode wrote to Out: %q", out.String())
		}
		log = lw.String()
	}
	return console, log
}

// The appendix follows the Java-compatible report: after a blank line on the console, as
// dnecho.freon lines (continuation lines verbatim) in the log.
func TestGeneratorAppendix(t *testing.T) {
	o := DefaultOptions()
	o.NumberOfTests, o.Threads = 10, 1
	appendix := func(r *Report) []string {
		return []string{"Per group:\n  a  " + r.Servers[0].Server, "VERDICT"}
	}
	task := func(context.Context, int) Outcome { return Outcome{Server: "g1", Latency: time.Millisecond} }
	console, text := consoleAndLog(t, Generator{Options: o, Task: task, Appendix: appendix})
	if !strings.HasSuffix(console, "Successful executions: 10\n\nPer group:\n  a  g1\nVERDICT\n") {
		t.Errorf("console:\n%s", console)
	}
	for _, want := range []string{" [shutdown-hook-0] INFO dnecho.freon: Per group:\n  a  g1\n", " INFO dnecho.freon: VERDICT\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "Successful executions: 10") > strings.Index(text, "Per group:") {
		t.Errorf("the appendix comes before the report:\n%s", text)
	}
}

// --verbose's option list follows the report and comes before the appendix, as Java freon prints
// it: "\nOption:" then name=value lines, on the console or as freon.BaseFreonGenerator lines.
func TestGeneratorOptionList(t *testing.T) {
	o := DefaultOptions()
	o.NumberOfTests, o.Threads = 3, 1
	g := Generator{Options: o, OptionList: []string{"--number-of-tests=3", "--duration=null"},
		Task:     func(context.Context, int) Outcome { return Outcome{Latency: time.Millisecond} },
		Appendix: func(*Report) []string { return []string{"APPENDIX"} }}
	console, text := consoleAndLog(t, g)
	if want := "Successful executions: 3\n\nOption:\n--number-of-tests=3\n--duration=null\n\nAPPENDIX\n"; !strings.HasSuffix(console, want) {
		t.Errorf("console ends with\n%q\nwant\n%q", console, want)
	}
	want := " [shutdown-hook-0] INFO freon.BaseFreonGenerator: \nOption:\n"
	i, j := strings.Index(text, "Successful executions: 3"), strings.Index(text, want)
	k, l := strings.Index(text, "freon.BaseFreonGenerator: --duration=null\n"), strings.Index(text, "dnecho.freon: APPENDIX")
	if i < 0 || j < i || k < j || l < k {
		t.Errorf("want the report, %q, the options, then the appendix, in that order:\n%s", want, text)
	}

	// Without --verbose nothing is added.
	g.OptionList = nil
	if console, text := consoleAndLog(t, g); strings.Contains(console+text, "Option:") {
		t.Errorf("an option list without --verbose:\n%s%s", console, text)
	}
}

// A task of several parts counts each part in its own group, with its own latency and outcome,
// instead of the task in its Group; the run's statistics still take the task's latency.
func TestGroupsOfParts(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 2, NumberOfTests: 100},
		func(_ context.Context, id int) Outcome {
			if id%2 == 0 {
				return Outcome{Server: "b", Latency: time.Millisecond}
			}
			// "a" fails after 10 ms, then "b" answers 1 ms later.
			return Outcome{Server: "b", Latency: 11 * time.Millisecond, Parts: []Part{
				{Server: "a", Latency: 10 * time.Millisecond, Failed: true}, {Server: "b", Latency: time.Millisecond}}}
		})
	if len(res.Servers) != 2 {
		t.Fatalf("groups %+v", res.Servers)
	}
	a, b := res.Servers[0], res.Servers[1]
	if a.Server != "a" || a.Count != 50 || a.Failures != 50 || a.Median != 10e6 {
		t.Errorf("group a: %+v", a)
	}
	if b.Server != "b" || b.Count != 100 || b.Failures != 0 || b.Max != int64(time.Millisecond) {
		t.Errorf("group b: %+v, want its 100 parts of 1 ms", b)
	}
	if res.Latency.Count != 100 || res.Latency.Max != int64(11*time.Millisecond) {
		t.Errorf("run: %d tasks, max %d", res.Latency.Count, res.Latency.Max)
	}
}
