package h2

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/protobuf/encoding/protowire"
)

// field is what a protobuf parser sees of one top-level field, leaving out the value of a
// length-delimited one (the scanner may leave it out) except for the message text (field 4).
type field struct {
	num   protowire.Number
	typ   protowire.Type
	value uint64
	text  string
}

// walk lists b's top-level fields; ok is false where a parser would reject b.
func walk(b []byte) (fields []field, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fields, false
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return fields, false
		}
		switch typ {
		case protowire.VarintType:
			f.value, _ = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			v, _ := protowire.ConsumeFixed32(b)
			f.value = uint64(v)
		case protowire.Fixed64Type:
			f.value, _ = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			if num == fieldMessage {
				v, _ := protowire.ConsumeBytes(b)
				f.text = string(v)
			}
		}
		fields = append(fields, f)
		b = b[m:]
	}
	return fields, true
}

// FuzzScanner: the kept fields of a message, read in any pieces, parse to the same fields with
// the same values (lengths of left-out values aside) and fail where the message fails.
func FuzzScanner(f *testing.F) {
	f.Add(okReply, uint8(3))
	f.Add([]byte{0x08, 0x16, 0x12, 0x00, 0x18, 0x09, 0x22, 0x03, 'b', 'a', 'd'}, uint8(1))
	big := append([]byte{0x08, 0x16, 0x18, 0x01, 0xba, 0x01, 0x42, 0x0a, 0x40}, make([]byte, 64)...)
	f.Add(big, uint8(7))
	f.Add(append(big, 0x18, 0x04, 0x22, 0x01, 'x'), uint8(2))
	f.Add([]byte{0x08, 0x16, 0x1b, 0x18, 0x01, 0x1c, 0x18, 0x01}, uint8(5))
	f.Add([]byte{0x18, 0x01, 0x12, 0xff, 0xff, 0x03}, uint8(1))
	f.Fuzz(func(t *testing.T, msg []byte, piece uint8) {
		step := int(piece)%64 + 1
		var s scanner
		var out []byte
		for i := 0; i < len(msg); i += step {
			end := min(i+step, len(msg))
			out = s.scan(msg[i:end], out, len(msg)-end)
		}
		want, wantOK := walk(msg)
		got, gotOK := walk(out)
		if gotOK != wantOK {
			t.Fatalf("message %x parses %v, its kept fields %x parse %v", msg, wantOK, out, gotOK)
		}
		if wantOK && !equalFields(got, want) {
			t.Fatalf("message %x: fields %v, kept %x: fields %v", msg, want, out, got)
		}
		if len(out) > len(msg)+10 {
			t.Fatalf("kept %d bytes of a %d-byte message", len(out), len(msg))
		}
	})
}

func equalFields(a, b []field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// serverFrames is a server's side of a connection after its preface, built with x/net's
// Framer: seeds for FuzzReader.
func serverFrames(write func(fr *http2.Framer, enc *hpack.Encoder, hb *bytes.Buffer)) []byte {
	var b, hb bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	enc := hpack.NewEncoder(&hb)
	write(fr, enc, &hb)
	return b.Bytes()
}

func block(enc *hpack.Encoder, hb *bytes.Buffer, kv ...string) []byte {
	hb.Reset()
	for i := 0; i < len(kv); i += 2 {
		_ = enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	return bytes.Clone(hb.Bytes())
}

// FuzzReader: whatever a server sends after its SETTINGS, the connection neither panics nor
// hangs: the call in flight ends, and Close stops both goroutines (goleak checks at the end).
func FuzzReader(f *testing.F) {
	msg := append(make([]byte, PrefixLen), okReply...)
	PutPrefix(msg)
	f.Add(serverFrames(func(fr *http2.Framer, enc *hpack.Encoder, hb *bytes.Buffer) {
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block(enc, hb, ":status", "200", "content-type", "application/grpc"), EndHeaders: true})
		_ = fr.WriteData(1, false, msg)
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block(enc, hb, "grpc-status", "0"), EndHeaders: true, EndStream: true})
	}))
	f.Add(serverFrames(func(fr *http2.Framer, enc *hpack.Encoder, hb *bytes.Buffer) {
		blk := block(enc, hb, ":status", "200", "content-type", "application/grpc", "grpc-status", "9", "grpc-message", "a%20b")
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk[:3], PadLength: 2, Priority: http2.PriorityParam{Weight: 3}})
		_ = fr.WriteContinuation(1, true, blk[3:])
		_ = fr.WritePing(false, [8]byte{1})
		_ = fr.WriteWindowUpdate(0, 100)
	}))
	f.Add(serverFrames(func(fr *http2.Framer, enc *hpack.Encoder, hb *bytes.Buffer) {
		_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 10}, http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0})
		_ = fr.WriteRSTStream(1, http2.ErrCodeRefusedStream)
		_ = fr.WriteGoAway(1, http2.ErrCodeEnhanceYourCalm, []byte("too_many_pings"))
	}))
	f.Add(serverFrames(func(fr *http2.Framer, enc *hpack.Encoder, hb *bytes.Buffer) {
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block(enc, hb, ":status", "200", "content-type", "application/grpc"), EndHeaders: true})
		_ = fr.WriteDataPadded(1, false, msg[:4], []byte{0, 0})
		_ = fr.WriteDataPadded(1, true, msg[4:], nil)
	}))
	f.Fuzz(func(t *testing.T, frames []byte) {
		cli, srv := net.Pipe()
		go func() {
			defer srv.Close()
			go func() { _, _ = io.Copy(io.Discard, srv) }()
			var settings bytes.Buffer
			_ = http2.NewFramer(&settings, nil).WriteSettings()
			_, _ = srv.Write(append(settings.Bytes(), frames...))
		}()
		ch, err := NewChannel(Config{Addr: "fuzz:1", Path: "/p/m", Timeout: time.Second,
			Dial: func(context.Context, string) (net.Conn, error) { return cli, nil }})
		if err != nil {
			t.Fatal(err)
		}
		defer ch.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = ch.RoundTrip(context.Background(), 2*time.Second, testRequest(), new(Reply))
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("the call did not end")
		}
	})
}
