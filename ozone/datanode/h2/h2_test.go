package h2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestOutcomes: what each server answer becomes (PROTOCOL-HTTP2.md, Responses and Errors).
func TestOutcomes(t *testing.T) {
	grpcHeaders := []string{":status", "200", "content-type", "application/grpc"}
	tests := []struct {
		name   string
		answer func(sc *srvConn, id uint32) error
		code   codes.Code
		msg    string // part of the error message
		eof    bool
	}{
		{"reply", func(sc *srvConn, id uint32) error { return sc.reply(id, okReply) }, codes.OK, "", false},
		{"trailers only with status", func(sc *srvConn, id uint32) error {
			return sc.headers(id, true, append(grpcHeaders, "grpc-status", "5", "grpc-message", "no%20such%zzthing")...)
		}, codes.NotFound, "no such%zzthing", false},
		{"OK without message", func(sc *srvConn, id uint32) error {
			return sc.headers(id, true, append(grpcHeaders, "grpc-status", "0")...)
		}, codes.OK, "", true},
		{"trailers without grpc-status", func(sc *srvConn, id uint32) error {
			if err := sc.headers(id, false, grpcHeaders...); err != nil {
				return err
			}
			return sc.headers(id, true, "grpc-message", "lost")
		}, codes.Unknown, "lost", false},
		{"malformed grpc-status", func(sc *srvConn, id uint32) error {
			return sc.headers(id, true, append(grpcHeaders, "grpc-status", "x1")...)
		}, codes.Unknown, "malformed grpc-status", false},
		{"RST_STREAM CANCEL", func(sc *srvConn, id uint32) error { return sc.fr.WriteRSTStream(id, http2.ErrCodeCancel) }, codes.Canceled, "RST_STREAM", false},
		{"RST_STREAM ENHANCE_YOUR_CALM", func(sc *srvConn, id uint32) error {
			return sc.fr.WriteRSTStream(id, http2.ErrCodeEnhanceYourCalm)
		}, codes.ResourceExhausted, "RST_STREAM", false},
		{"HTTP 404", func(sc *srvConn, id uint32) error {
			return sc.headers(id, true, ":status", "404", "content-type", "text/html")
		}, codes.Unimplemented, "404", false},
		{"HTTP 503 with a body", func(sc *srvConn, id uint32) error {
			return sc.headers(id, false, ":status", "503", "content-type", "text/plain")
		}, codes.Unavailable, "503", false},
		{"no trailers", func(sc *srvConn, id uint32) error {
			if err := sc.headers(id, false, grpcHeaders...); err != nil {
				return err
			}
			return sc.fr.WriteData(id, true, nil)
		}, codes.Internal, "without sending trailers", false},
		{"headers in the middle", func(sc *srvConn, id uint32) error {
			if err := sc.headers(id, false, grpcHeaders...); err != nil {
				return err
			}
			return sc.headers(id, false, "x-late", "1")
		}, codes.Internal, "middle of a stream", false},
		{"compressed message", func(sc *srvConn, id uint32) error {
			if err := sc.headers(id, false, grpcHeaders...); err != nil {
				return err
			}
			return sc.fr.WriteData(id, false, []byte{1, 0, 0, 0, 1, 0})
		}, codes.Internal, "compressed", false},
		{"message over the limit", func(sc *srvConn, id uint32) error {
			if err := sc.headers(id, false, grpcHeaders...); err != nil {
				return err
			}
			return sc.fr.WriteData(id, false, []byte{0, 0, 0x10, 0, 1})
		}, codes.ResourceExhausted, "larger than max", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeServer(t, func(sc *srvConn) {
				for {
					r, err := sc.next()
					if err != nil || tt.answer(sc, r.id) != nil {
						return
					}
				}
			})
			ch := newTestChannel(t, s.addr(), time.Minute)
			ch.cfg.MaxRecvMsgSize = 1 << 20
			for i := range 2 { // the second call rides the same connection: the stream left nothing behind
				r, err := call(ch, time.Minute)
				if tt.eof {
					if err != io.EOF {
						t.Fatalf("call %d: %v, want io.EOF", i, err)
					}
					continue
				}
				if status.Code(err) != tt.code || (tt.msg != "" && !strings.Contains(status.Convert(err).Message(), tt.msg)) {
					t.Fatalf("call %d: %v, want %v with %q", i, err, tt.code, tt.msg)
				}
				if err == nil && (!bytes.Equal(r.Fields, okReply) || r.Size != len(okReply)) {
					t.Fatalf("reply %x (%d bytes), want %x", r.Fields, r.Size, okReply)
				}
			}
		})
	}
}

// TestUnprocessedCallsGoAgain: a call refused by RST_STREAM REFUSED_STREAM or cut off by GOAWAY
// goes once more on a new connection; a call the server accepted before GOAWAY completes on
// the old one.
func TestUnprocessedCallsGoAgain(t *testing.T) {
	tests := []struct {
		name  string
		first func(sc *srvConn, id uint32) error
		conns int32 // connections the two calls take
	}{
		{"REFUSED_STREAM", func(sc *srvConn, id uint32) error {
			if err := sc.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream); err != nil {
				return err
			}
			serveOK(okReply)(sc)
			return nil
		}, 1},
		{"GOAWAY below the stream", func(sc *srvConn, id uint32) error {
			return sc.fr.WriteGoAway(0, http2.ErrCodeNo, []byte("max_age"))
		}, 2},
		{"GOAWAY then the reply", func(sc *srvConn, id uint32) error {
			if err := sc.fr.WriteGoAway(id, http2.ErrCodeNo, nil); err != nil {
				return err
			}
			return sc.reply(id, okReply)
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var conns atomic.Int32
			s := newFakeServer(t, func(sc *srvConn) {
				n := conns.Add(1)
				r, err := sc.next()
				if err != nil {
					return
				}
				if n == 1 {
					_ = tt.first(sc, r.id)
					_, _ = sc.next() // until the client closes the connection
					return
				}
				if sc.reply(r.id, okReply) == nil {
					serveOK(okReply)(sc)
				}
			})
			ch := newTestChannel(t, s.addr(), time.Minute)
			for i := range 2 {
				if _, err := call(ch, time.Minute); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if n := conns.Load(); n != tt.conns {
				t.Fatalf("%d connections, want %d", n, tt.conns)
			}
		})
	}
}

// TestConnectionLost: calls in flight when the connection breaks fail with UNAVAILABLE, and
// the next call dials again.
func TestConnectionLost(t *testing.T) {
	var conns atomic.Int32
	s := newFakeServer(t, func(sc *srvConn) {
		if conns.Add(1) == 1 {
			_, _ = sc.next()
			return // closes the connection with the call in flight
		}
		serveOK(okReply)(sc)
	})
	ch := newTestChannel(t, s.addr(), time.Minute)
	if _, err := call(ch, time.Minute); status.Code(err) != codes.Unavailable {
		t.Fatalf("call on a lost connection: %v, want UNAVAILABLE", err)
	}
	if _, err := call(ch, time.Minute); err != nil {
		t.Fatalf("call after reconnecting: %v", err)
	}
}

// TestDialFailureBacksOff: while the server is down calls fail at once with UNAVAILABLE, and
// the channel does not dial for each of them.
func TestDialFailureBacksOff(t *testing.T) {
	s := newFakeServer(t, serveOK(okReply))
	addr := s.addr()
	s.close()
	var dials atomic.Int32
	ch := newTestChannel(t, addr, time.Minute)
	dial := ch.cfg.Dial
	ch.cfg.Dial = func(ctx context.Context, a string) (net.Conn, error) { dials.Add(1); return dial(ctx, a) }
	for i := range 5 {
		if _, err := call(ch, time.Minute); status.Code(err) != codes.Unavailable {
			t.Fatalf("call %d: %v, want UNAVAILABLE", i, err)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials for 5 calls within the back-off, want 1", n)
	}
}

// TestDeadlineAndCancel: a silent server holds a call until its timeout or the caller's
// cancellation, which reset the stream; the connection serves on.
func TestDeadlineAndCancel(t *testing.T) {
	var resets atomic.Int32
	answer := make(chan uint32, 4)
	s := newFakeServer(t, func(sc *srvConn) {
		for {
			f, err := sc.fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.RSTStreamFrame:
				resets.Add(1)
			case *http2.MetaHeadersFrame:
				if f.StreamID >= 5 {
					answer <- f.StreamID
				}
			case *http2.SettingsFrame:
				if !f.IsAck() {
					_ = sc.fr.WriteSettingsAck()
				}
			}
			select {
			case id := <-answer:
				_ = sc.reply(id, okReply)
			default:
			}
		}
	})
	ch := newTestChannel(t, s.addr(), time.Minute)
	if _, err := call(ch, 50*time.Millisecond); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := ch.RoundTrip(ctx, time.Minute, testRequest(), new(Reply)); status.Code(err) != codes.Canceled {
		t.Fatalf("cancel: %v", err)
	}
	if _, err := call(ch, time.Minute); err != nil {
		t.Fatalf("after: %v", err)
	}
	if n := resets.Load(); n != 2 {
		t.Fatalf("%d RST_STREAM, want 2", n)
	}
}

// TestLargeMessagesAndFlowControl: a request far beyond the server's windows arrives whole, a
// 3 MiB reply in small padded frames is counted and not kept, and the client's windows never
// run dry.
func TestLargeMessagesAndFlowControl(t *testing.T) {
	big := make([]byte, 3<<20)
	reply := append([]byte{0x08, 0x16, 0x12, 0x00, 0x18, 0x01, 0xba, 0x01, 0x85, 0x80, 0xc0, 0x01, 0x0a, 0x80, 0x80, 0xc0, 0x01}, big...)
	got := make(chan int, 1)
	s := newFakeServer(t, func(sc *srvConn) {
		r, err := sc.next()
		if err != nil {
			return
		}
		got <- len(r.body)
		if sc.headers(r.id, false, ":status", "200", "content-type", "application/grpc") != nil {
			return
		}
		b := append(make([]byte, PrefixLen), reply...)
		PutPrefix(b)
		for len(b) > 0 {
			n := min(1000, len(b))
			if sc.fr.WriteDataPadded(r.id, false, b[:n], make([]byte, 7)) != nil {
				return
			}
			b = b[n:]
		}
		_ = sc.headers(r.id, true, "grpc-status", "0")
		_, _ = sc.next()
	})
	s.setSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 100}, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 16384})
	ch := newTestChannel(t, s.addr(), time.Minute)
	ch.cfg.MaxRecvMsgSize = 4 << 20
	req := make([]byte, PrefixLen+300000)
	PutPrefix(req)
	r := new(Reply)
	if err := ch.RoundTrip(context.Background(), time.Minute, req, r); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != len(req) {
		t.Fatalf("server got %d request bytes, want %d", n, len(req))
	}
	if r.Size != len(reply) || len(r.Fields) > 32 {
		t.Fatalf("reply of %d bytes kept as %d bytes, want %d kept as a few", r.Size, len(r.Fields), len(reply))
	}
}

// TestHeaderTableOff: a server that allows no dynamic table still decodes every request's
// headers (RFC 7541, section 4.2: the client signals the smaller table and indexes nothing).
func TestHeaderTableOff(t *testing.T) {
	paths := make(chan string, 8)
	s := newFakeServer(t, func(sc *srvConn) {
		sc.dec.SetMaxDynamicTableSize(0)
		sc.dec.SetAllowedMaxDynamicTableSize(0)
		for {
			r, err := sc.next()
			if err != nil {
				return
			}
			paths <- r.fields[":path"] + " " + r.fields["grpc-timeout"]
			if sc.reply(r.id, okReply) != nil {
				return
			}
		}
	})
	s.setSettings(http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0})
	ch := newTestChannel(t, s.addr(), time.Minute)
	for i := range 4 {
		if _, err := call(ch, time.Duration(i+1)*time.Minute/2); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		want := ch.cfg.Path + " " + string(appendTimeout(nil, time.Duration(i+1)*time.Minute/2))
		if got := <-paths; got != want {
			t.Fatalf("call %d: server saw %q, want %q", i, got, want)
		}
	}
}

// TestConcurrentStreamLimit: calls beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait for
// a stream to end instead of failing.
func TestConcurrentStreamLimit(t *testing.T) {
	s := newFakeServer(t, serveOK(okReply))
	s.setSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1})
	ch := newTestChannel(t, s.addr(), time.Minute)
	if _, err := call(ch, time.Minute); err != nil { // the SETTINGS are in force after this
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := call(ch, time.Minute); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestReusedStream: one stream carries several calls; a stream the server ended while idle
// reports the next call unsent.
func TestReusedStream(t *testing.T) {
	s := newFakeServer(t, func(sc *srvConn) {
		r, err := sc.next()
		if err != nil || sc.headers(r.id, false, ":status", "200", "content-type", "application/grpc") != nil {
			return
		}
		for i := 0; ; i++ {
			if sc.message(r.id, okReply, 3) != nil {
				return
			}
			if i == 2 {
				_ = sc.headers(r.id, true, "grpc-status", "0")
				_, _ = sc.next()
				return
			}
			if _, err := sc.next(); err != nil {
				return
			}
		}
	})
	ch := newTestChannel(t, s.addr(), time.Minute)
	st, err := ch.Open(context.Background(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := new(Reply)
	for i := range 3 {
		if unsent, err := st.RoundTrip(context.Background(), time.Minute, testRequest(), r); unsent || err != nil || !bytes.Equal(r.Fields, okReply) {
			t.Fatalf("call %d: unsent %v, %v, reply %x", i, unsent, err, r.Fields)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		unsent, err := st.RoundTrip(context.Background(), time.Second, testRequest(), r)
		if unsent {
			if !errors.Is(err, io.EOF) || !st.Broken() {
				t.Fatalf("after the server ended the stream: %v, broken %v", err, st.Broken())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended stream still takes calls: %v", err)
		}
	}
}

// TestClose: Close fails calls in flight with CANCELLED and later calls too.
func TestClose(t *testing.T) {
	s := newFakeServer(t, func(sc *srvConn) { _, _ = sc.next(); _, _ = sc.next() })
	ch := newTestChannel(t, s.addr(), time.Minute)
	errc := make(chan error, 1)
	go func() { _, err := call(ch, time.Minute); errc <- err }()
	for ch.cur.Load() == nil || ch.cur.Load().activeCount() == 0 {
		time.Sleep(time.Millisecond)
	}
	ch.Close()
	if err := <-errc; status.Code(err) != codes.Canceled {
		t.Fatalf("call in flight: %v", err)
	}
	if _, err := call(ch, time.Minute); status.Code(err) != codes.Canceled {
		t.Fatalf("call after Close: %v", err)
	}
}
