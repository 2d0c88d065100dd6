package echometrics

import (
	"bufio"
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/builtin"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type point struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Value float64           `json:"value"`
		Tags  map[string]string `json:"tags"`
	} `json:"data"`
}

// TestOutputs runs the freon command's -o feed against the json output writing to memory:
// every call that is a measurement reaches the output once, with the session's and the call's
// tags, however many workers record at once.
func TestOutputs(t *testing.T) {
	tests := []struct {
		name              string
		workers, calls    int
		interrupted       bool
		wantReqs, wantErr int
	}{
		{name: "one worker", workers: 1, calls: 3, wantReqs: 3},
		{name: "workers share shards and fill batches", workers: 40, calls: 300, wantReqs: 12000, wantErr: 40 * 300 / 7},
		{name: "interrupted calls are not measurements", workers: 2, calls: 5, interrupted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			set, err := builtin.Open([]string{"json"}, output.Params{Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			o, err := StartOutputs(OutputsConfig{
				Set: set, Tags: metrics.NewTags(map[string]string{"run": "a", TagContainer: "7"}),
				Mode: echo.ModeGRPC, VUs: tt.workers,
			})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for w := range tt.workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range tt.calls {
						r := echo.Result{Latency: time.Millisecond, Label: echo.LabelSuccess, Pipeline: "p1",
							DataNode: datanode.DataNode{UUID: "dn1"}, BytesSent: 10, Interrupted: tt.interrupted}
						if (w*tt.calls+i)%7 == 6 {
							r.Err, r.Label = errors.New("refused"), "CONTAINER_NOT_FOUND"
						}
						o.Record(w, &r)
					}
				}()
			}
			wg.Wait()
			results := o.Close(context.Background())
			if err := o.Finish(output.End{}); err != nil {
				t.Fatal(err)
			}
			if len(results) != 1 || results[0].Lost() || results[0].StopErr != nil {
				t.Fatalf("results = %+v, want one output that lost nothing", results)
			}
			reqs, failed := countCalls(t, &out)
			if reqs != tt.wantReqs || failed != tt.wantErr {
				t.Errorf("%s: %d calls, %d failed; want %d, %d", Reqs, reqs, failed, tt.wantReqs, tt.wantErr)
			}
		})
	}
}

// countCalls reads the json output's points: the calls (Reqs) and the failed ones (ReqFailed),
// checking the tags every call carries.
func countCalls(t *testing.T, out *bytes.Buffer) (reqs, failed int) {
	t.Helper()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var p point
		if err := stdjson.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("not JSON: %s: %v", sc.Text(), err)
		}
		if p.Type != "Point" || (p.Metric != Reqs && p.Metric != ReqFailed) {
			continue
		}
		for k, want := range map[string]string{"run": "a", TagContainer: "7", TagPipeline: "p1", TagDataNode: "dn1", TagMode: "grpc"} {
			if got := p.Data.Tags[k]; got != want {
				t.Fatalf("%s tag %s = %q, want %q", p.Metric, k, got, want)
			}
		}
		switch {
		case p.Metric == Reqs:
			reqs++
		case p.Data.Value == 1:
			failed++
		}
	}
	return reqs, failed
}

func TestNilOutputs(t *testing.T) {
	var o *Outputs // no -o: calls cost nothing and Close has nothing to do
	o.Record(1, &echo.Result{})
	if res := o.Close(context.Background()); res != nil {
		t.Errorf("Close = %v, want nil", res)
	}
	if err := o.Finish(output.End{}); err != nil {
		t.Errorf("Finish = %v, want nil", err)
	}
}
