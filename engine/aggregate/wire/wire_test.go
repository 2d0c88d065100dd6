package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/internal/quantile"
)

func sampleState() *State {
	t0 := time.Unix(1700000000, 123)
	return &State{
		Elapsed: 3 * time.Second, VUs: 4, VUsMax: 10,
		NewSeries: []SeriesDef{
			{ID: 1, Metric: "iterations", Type: metrics.Counter, Contains: metrics.Default, Tags: []metrics.Tag{{Key: "scenario", Value: "default"}}},
			{ID: 2, Metric: "extmod_req_duration", Type: metrics.Trend, Contains: metrics.Time},
		},
		Deltas: []SeriesDelta{
			{ID: 1, Type: metrics.Counter, Delta: metrics.Delta{N: 3, Sum: 3, First: t0, Last: t0.Add(time.Second)}},
			{ID: 3, Type: metrics.Gauge, Delta: metrics.Delta{N: 2, Value: 5, Min: 1, Max: 5, Last: t0}},
			{ID: 4, Type: metrics.Rate, Delta: metrics.Delta{N: 10, Trues: 7}},
			{ID: 2, Type: metrics.Trend, Delta: metrics.Delta{N: 2, Trend: quantile.Part{Count: 2, Sum: 3, Min: 1, Max: 2, Exact: []float64{1, 2}}}},
			{ID: 5, Type: metrics.Trend, Delta: metrics.Delta{N: 5, Trend: quantile.Part{Count: 5, Sum: 9, Min: 1, Max: 3, Clamped: 1,
				Buckets: []quantile.Bucket{{Value: 1000, Count: 2}, {Value: 4096, Count: 3}}}}},
		},
	}
}

func TestStateRoundTrip(t *testing.T) {
	in := sampleState()
	out, err := DecodeState(AppendState(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Deltas { // times decode in the local zone
		out.Deltas[i].Delta.First = out.Deltas[i].Delta.First.In(in.Deltas[i].Delta.First.Location())
		out.Deltas[i].Delta.Last = out.Deltas[i].Delta.Last.In(in.Deltas[i].Delta.Last.Location())
		if in.Deltas[i].Delta.First.IsZero() {
			out.Deltas[i].Delta.First = time.Time{}
		}
		if in.Deltas[i].Delta.Last.IsZero() {
			out.Deltas[i].Delta.Last = time.Time{}
		}
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n in %+v\nout %+v", in, out)
	}
}

func TestStateRejectsInconsistency(t *testing.T) {
	for name, s := range map[string]*State{
		"trues above samples": {Deltas: []SeriesDelta{{Type: metrics.Rate, Delta: metrics.Delta{N: 1, Trues: 2}}}},
		"trend count":         {Deltas: []SeriesDelta{{Type: metrics.Trend, Delta: metrics.Delta{N: 3, Trend: quantile.Part{Exact: []float64{1}}}}}},
		"bucket order": {Deltas: []SeriesDelta{{Type: metrics.Trend, Delta: metrics.Delta{N: 2, Trend: quantile.Part{
			Buckets: []quantile.Bucket{{Value: 5, Count: 1}, {Value: 5, Count: 1}}}}}}},
		"metric type": {NewSeries: []SeriesDef{{ID: 1, Metric: "x", Type: 9}}},
	} {
		if _, err := DecodeState(AppendState(nil, s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	good := AppendState(nil, sampleState())
	for i := range good {
		if _, err := DecodeState(good[:i]); err == nil {
			t.Fatalf("truncated at %d of %d: accepted", i, len(good))
		}
	}
}

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := WriteJSON(w, FrameHello, Hello{Instance: "1", Segment: "0:1/2", Sequence: "0,1/2,1"}); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&buf)
	typ, p, err := ReadFrame(r)
	if err != nil || typ != FrameHello || !bytes.Contains(p, []byte(`"segment":"0:1/2"`)) {
		t.Fatalf("frame %q %s %v", typ, p, err)
	}
	if _, _, err := ReadFrame(r); !errors.Is(err, io.EOF) {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
	huge := bufio.NewReader(bytes.NewReader([]byte{FrameState, 0xff, 0xff, 0xff, 0xff, 0x0f}))
	if _, _, err := ReadFrame(huge); err == nil {
		t.Error("a frame above MaxFrame was accepted")
	}
}

// FuzzDecodeState: no input panics the decoder, and what it accepts encodes back to an
// equivalent state.
func FuzzDecodeState(f *testing.F) {
	f.Add(AppendState(nil, sampleState()))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 1, 3, 1, 1, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeState(b)
		if err != nil {
			return
		}
		again, err := DecodeState(AppendState(nil, s))
		if err != nil || len(again.Deltas) != len(s.Deltas) || len(again.NewSeries) != len(s.NewSeries) {
			t.Fatalf("re-encoding an accepted state: %v", err)
		}
	})
}

// TestAnnouncedFrameCostsNothing: a peer that announces a frame of MaxFrame bytes and sends a few
// makes the reader allocate about what arrived, not what was announced.
func TestAnnouncedFrameCostsNothing(t *testing.T) {
	in := binary.AppendUvarint([]byte{FrameState}, MaxFrame)
	in = append(in, make([]byte, 1000)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadFrame(bufio.NewReader(bytes.NewReader(in)))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated frame: %v, want unexpected EOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("reading 1000 bytes of an announced %d allocated %d bytes", MaxFrame, got)
	}
	if _, _, err := ReadFrameLimit(bufio.NewReader(bytes.NewReader([]byte{FrameAuth, 200, 1})), 100); err == nil {
		t.Error("a frame above its limit was accepted")
	}
}

// FuzzReadFrame: no input panics the frame reader, and no payload exceeds its limit.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{FrameAuth, 3, 'a', 'b', 'c'}, 16)
	f.Add([]byte{FrameHello, 0xff, 0xff, 0x03}, 1<<20)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 || limit > MaxFrame {
			return
		}
		_, p, err := ReadFrameLimit(bufio.NewReader(bytes.NewReader(b)), limit)
		if err == nil && len(p) > limit {
			t.Fatalf("payload of %d bytes, limit %d", len(p), limit)
		}
	})
}
