package freon

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// A generator logs the start line, at most MaxLoggedErrors error lines, the report and the breakdown.
func TestGeneratorLogsReportAndBreakdown(t *testing.T) {
	o := DefaultOptions()
	o.NumberOfTests, o.Threads, o.FailAtEnd = 50, 2, true
	var out, log bytes.Buffer
	g := Generator{
		Options: o, Prefix: "abc",
		Task: func(_ context.Context, id int) Outcome {
			if id%2 == 0 {
				return Outcome{Err: errors.New("boom"), Label: "BOOM"}
			}
			return Outcome{}
		},
		Out: &out, Log: NewLogWriter(&log, nil),
	}
	res, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Failures != 25 || res.Successes != 25 {
		t.Fatalf("failures %d successes %d", res.Failures, res.Successes)
	}
	text := log.String()
	for _, want := range []string{"Executing test with prefix abc and number-of-tests 50", "Failures: 25",
		"Successful executions: 25", "Failures by result: BOOM=25", "further errors are only counted"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "Error on executing task"); n != MaxLoggedErrors {
		t.Errorf("%d task error lines, want %d", n, MaxLoggedErrors)
	}
}
