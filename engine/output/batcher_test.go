package output

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Every output can be handed to the collector's fan-out.
var _ ingest.Output = Output(nil)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The batcher's ticker runs on synctest's virtual clock: one period after the samples arrive they
// have been flushed, with no polling and no real waiting.
func TestBatcherFlushesPeriodicallyAndOnStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []int
		b := NewBatcher(5*time.Millisecond, func(batches [][]metrics.Sample) error {
			mu.Lock()
			defer mu.Unlock()
			for _, batch := range batches {
				got = append(got, len(batch))
			}
			return nil
		})
		b.Start()
		b.Start() // idempotent
		b.AddSamples(make([]metrics.Sample, 3))
		b.AddSamples(nil) // ignored
		time.Sleep(5 * time.Millisecond)
		synctest.Wait()
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n != 1 {
			t.Fatalf("%d flushes after one period, want 1 (periodic)", n)
		}
		b.AddSamples(make([]metrics.Sample, 2))
		if err := b.Stop(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != 3 || got[1] != 2 {
			t.Errorf("flushed %v, want [3 2]", got)
		}
		b.Start() // after Stop: a no-op, not a second goroutine
		if err := b.Stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBatcherKeepsFirstError(t *testing.T) {
	var calls atomic.Int32
	b := NewBatcher(time.Hour, func([][]metrics.Sample) error {
		return errors.New("disk full " + string(rune('0'+calls.Add(1))))
	})
	b.AddSamples(make([]metrics.Sample, 1))
	b.flushPending()
	b.AddSamples(make([]metrics.Sample, 1))
	if err := b.Stop(); err == nil || err.Error() != "disk full 1" {
		t.Errorf("err %v, want the first one", err)
	}
}

func TestParseSpec(t *testing.T) {
	for in, want := range map[string][2]string{
		"json": {"json", ""}, "json=a.json": {"json", "a.json"}, "csv=fileName=a=b": {"csv", "fileName=a=b"},
	} {
		if typ, arg := ParseSpec(in); typ != want[0] || arg != want[1] {
			t.Errorf("%s: %s %s", in, typ, arg)
		}
	}
	if len((Params{}).EnabledSystemTags()) != 14 || len((Params{SystemTags: []string{}}).EnabledSystemTags()) != 0 {
		t.Error("EnabledSystemTags")
	}
}

// A full queue drops whole batches and counts them, without blocking the producer.
func TestBatcherLimit(t *testing.T) {
	var got int
	b := NewBatcher(time.Hour, func(batches [][]metrics.Sample) error {
		for _, x := range batches {
			got += len(x)
		}
		return nil
	})
	b.SetLimit(5)
	for range 4 {
		b.AddSamples(make([]metrics.Sample, 2))
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	if got != 4 || b.Dropped() != 4 {
		t.Errorf("flushed %d, dropped %d; want 4 and 4", got, b.Dropped())
	}
}
