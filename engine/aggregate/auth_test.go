package aggregate_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/aggregate/wire"
)

// runGuarded runs an aggregator of one instance with a token until stop is called.
func runGuarded(t *testing.T, token string) (addr string, stop func() *aggregate.Report) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *aggregate.Report, 1)
	go func() {
		r, _ := aggregate.New(aggregate.Options{Listener: ln, Instances: 1, Token: token}).Run(ctx)
		done <- r
	}()
	res := (*aggregate.Report)(nil)
	stop = func() *aggregate.Report {
		if res == nil {
			cancel()
			res = <-done
		}
		return res
	}
	t.Cleanup(func() { stop() })
	return ln.Addr().String(), stop
}

// exchange sends raw frames and returns the aggregator's answer: its Error's message.
func exchange(t *testing.T, addr string, frames ...[]byte) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, f := range frames {
		if _, err := conn.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	typ, p, err := wire.ReadFrame(bufio.NewReader(conn))
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var e wire.Error
	if typ != wire.FrameError || json.Unmarshal(p, &e) != nil {
		t.Fatalf("answer %q %s, want an error", typ, p)
	}
	return e.Message
}

// frame encodes one frame.
func frame(typ byte, payload []byte) []byte {
	b := binary.AppendUvarint([]byte{typ}, uint64(len(payload)))
	return append(b, payload...)
}

// header is a frame's type and announced length only, as a peer that never sends the payload.
func header(typ byte, n uint64) []byte { return binary.AppendUvarint([]byte{typ}, n) }

// TestTokenGuardsTheTest: with a token, a peer without it (or with another) is refused, and
// the outcome it posts does not count: the test still has no instance.
func TestTokenGuardsTheTest(t *testing.T) {
	addr, stop := runGuarded(t, "s3cret")
	hello, _ := json.Marshal(wire.Hello{Instance: "fake", Segment: "0:1", Sequence: "0,1"})
	final, _ := json.Marshal(wire.Final{ExitCode: 0, DurationNs: int64(time.Second)})
	if msg := exchange(t, addr, frame(wire.FrameHello, hello), frame(wire.FrameFinal, final)); !strings.Contains(msg, "no token") {
		t.Errorf("without a token: %q", msg)
	}
	if msg := exchange(t, addr, frame(wire.FrameAuth, []byte("guess")), frame(wire.FrameHello, hello)); !strings.Contains(msg, "wrong token") {
		t.Errorf("with a wrong token: %q", msg)
	}
	// The token is checked before anything else is read: a huge announced frame after a
	// missing token is not waited for.
	if msg := exchange(t, addr, header(wire.FrameHello, 100)); !strings.Contains(msg, "no token") {
		t.Errorf("a hello announced without a token: %q", msg)
	}
	if res := stop(); len(res.Instances) != 0 || res.Hello != nil {
		t.Errorf("instances %v: the fake peers must not have joined", res.Instances)
	}
}

// TestUnidentifiedBound: a connection that has not identified itself may not announce more than
// a small frame; the aggregator refuses at once instead of waiting for (and holding) 64 MiB.
func TestUnidentifiedBound(t *testing.T) {
	for _, tc := range []struct {
		token string
		first []byte
	}{
		{"", header(wire.FrameHello, wire.MaxFrame)},
		{"s3cret", header(wire.FrameAuth, wire.MaxAuth+1)},
		{"s3cret", append(frame(wire.FrameAuth, []byte("s3cret")), header(wire.FrameHello, wire.MaxHello+1)...)},
	} {
		addr, _ := runGuarded(t, tc.token)
		if msg := exchange(t, addr, tc.first); !strings.Contains(msg, "exceeds") {
			t.Errorf("token %q: %q, want the frame refused for its size", tc.token, msg)
		}
	}
}

// TestTokenAdmits: the instance with the token joins.
func TestTokenAdmits(t *testing.T) {
	addr, stop := runGuarded(t, "s3cret")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := bufio.NewWriter(conn)
	if err := wire.WriteFrame(w, wire.FrameAuth, []byte("s3cret")); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteJSON(w, wire.FrameHello, wire.Hello{Instance: "real", Segment: "0:1", Sequence: "0,1"}); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteJSON(w, wire.FrameFinal, wire.Final{ExitCode: 0}); err != nil {
		t.Fatal(err)
	}
	typ, p, err := wire.ReadFrame(bufio.NewReader(conn))
	if err != nil || typ != wire.FrameVerdict {
		t.Fatalf("answer %q %s %v, want the verdict", typ, p, err)
	}
	if res := stop(); len(res.Instances) != 1 || res.Instances[0].Name != "real" || res.Instances[0].Lost {
		t.Errorf("instances %+v, want the real one, ended", res.Instances)
	}
}
