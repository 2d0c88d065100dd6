// Package wire is the protocol between the instances of a distributed test and the aggregator
// (`dnecho aggregate`), over one TCP connection per instance. Each message is a frame: a type
// byte, the payload length as an unsigned varint, the payload. The instance sends Hello, then a
// State every push interval, then Final; the aggregator answers Final with the Verdict, may send
// Stop at any time, and Error before it closes a connection it refuses. Hello, Final, Verdict and
// Error are JSON; State is binary (state.go), since it carries every series' delta every second.
package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Frame types.
const (
	FrameHello   byte = 'H'
	FrameState   byte = 'S'
	FrameFinal   byte = 'F'
	FrameVerdict byte = 'V'
	FrameStop    byte = 'X'
	FrameError   byte = 'E'
	FrameAuth    byte = 'A'
)

// Bounds of a frame's payload, so that a broken or hostile peer cannot make the reader allocate
// without limit: MaxFrame once an instance is admitted, MaxAuth and MaxHello before (an
// unidentified connection holds at most MaxHello).
const (
	MaxFrame = 64 << 20
	MaxAuth  = 1 << 10
	MaxHello = 1 << 20
)

// WriteFrame writes one frame; the caller flushes w.
func WriteFrame(w *bufio.Writer, typ byte, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("frame %q of %d bytes exceeds %d", typ, len(payload), MaxFrame)
	}
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = typ
	n := binary.PutUvarint(hdr[1:], uint64(len(payload)))
	if _, err := w.Write(hdr[:1+n]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// WriteJSON writes a frame whose payload is v as JSON, and flushes.
func WriteJSON(w *bufio.Writer, typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := WriteFrame(w, typ, b); err != nil {
		return err
	}
	return w.Flush()
}

// ReadFrame reads one frame of at most MaxFrame bytes. io.EOF means the peer closed between
// frames.
func ReadFrame(r *bufio.Reader) (typ byte, payload []byte, err error) {
	return ReadFrameLimit(r, MaxFrame)
}

// eagerAlloc is the largest payload allocated at once; a larger one grows as its bytes arrive,
// so that a length the peer announces but does not send costs nothing.
const eagerAlloc = 64 << 10

// ReadFrameLimit reads one frame whose payload may have at most limit bytes.
func ReadFrameLimit(r *bufio.Reader, limit int) (typ byte, payload []byte, err error) {
	if typ, err = r.ReadByte(); err != nil {
		return 0, nil, err
	}
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, nil, unexpected(err)
	}
	if n > uint64(limit) {
		return 0, nil, fmt.Errorf("frame %q of %d bytes exceeds %d", typ, n, limit)
	}
	if n <= eagerAlloc {
		payload = make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return 0, nil, unexpected(err)
		}
		return typ, payload, nil
	}
	var buf bytes.Buffer
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		return 0, nil, unexpected(err)
	}
	return typ, buf.Bytes(), nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Hello introduces an instance: which part of the test it runs and what the aggregator needs to
// judge the whole test (its metrics, thresholds and summary settings).
type Hello struct {
	// Instance names the instance in reports: its instance_id tag (k6-operator sets it), else
	// its host name.
	Instance string `json:"instance"`
	// Segment and Sequence are the instance's execution segment and the sequence of all
	// segments, exact fractions ("1/3:2/3", "0,1/3,2/3,1"); "0:1" and "0,1" for a whole test.
	Segment  string `json:"segment"`
	Sequence string `json:"sequence"`
	// API is the instance's REST API address ("" without one): the aggregator stops instances
	// through it. An unspecified host (0.0.0.0) means the address the connection comes from.
	API string `json:"api,omitempty"`
	// Metrics are the metrics the script registered, so that thresholds on metrics without
	// samples yet can be parsed.
	Metrics []MetricDef `json:"metrics"`
	// Thresholds is the test's `thresholds` option as JSON (null without thresholds).
	Thresholds json.RawMessage `json:"thresholds,omitempty"`
	// SummaryTrendStats and SummaryTimeUnit are the summary options of the test.
	SummaryTrendStats []string `json:"summaryTrendStats,omitempty"`
	SummaryTimeUnit   string   `json:"summaryTimeUnit,omitempty"`
}

// MetricDef is a metric's name, type and value type as k6 spells them ("trend", "time").
type MetricDef struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Contains string `json:"contains"`
}

// Final ends an instance's stream: its State frames are complete, and this is how its run ended.
type Final struct {
	// ExitCode is what the instance would exit with on its own (0, 103, 105, 107, …).
	ExitCode int `json:"exitCode"`
	// Error is the run's error text ("" on success).
	Error string `json:"error,omitempty"`
	// DurationNs is the instance's test run duration (setup start to teardown end).
	DurationNs int64 `json:"durationNs"`
}

// Verdict is the whole test's outcome, sent to every instance once all have ended.
type Verdict struct {
	// Failed lists the metrics whose thresholds failed on the whole test, sorted.
	Failed []string `json:"failed,omitempty"`
	// Aborted says an abortOnFail threshold stopped the test.
	Aborted bool `json:"aborted,omitempty"`
	// Lost names the instances that disappeared before their Final.
	Lost []string `json:"lost,omitempty"`
}

// Error is the reason the aggregator refuses or drops an instance.
type Error struct {
	Message string `json:"message"`
}
