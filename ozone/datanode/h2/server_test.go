package h2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeServer is an HTTP/2 server whose every connection runs a test's script, so that a test
// can send what grpc-go's and grpc-java's servers send only when something goes wrong.
type fakeServer struct {
	ln     net.Listener
	script func(*srvConn)
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	// settings go into each connection's server preface.
	settings []http2.Setting
}

func newFakeServer(t *testing.T, script func(*srvConn)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, script: script}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, nc)
		settings := s.settings
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer nc.Close()
			sc := newSrvConn(nc)
			sc.settings = settings
			if sc.handshake() == nil {
				s.script(sc)
			}
		}()
	}
}

func (s *fakeServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

// srvConn is the server side of one connection.
type srvConn struct {
	nc   net.Conn
	fr   *http2.Framer
	enc  *hpack.Encoder
	ebuf bytes.Buffer
	dec  *hpack.Decoder
	// settings are sent in the server preface; nil sends an empty SETTINGS frame.
	settings []http2.Setting
	open     map[uint32]*request // streams that sent HEADERS, by id
}

func newSrvConn(nc net.Conn) *srvConn {
	sc := &srvConn{nc: nc, fr: http2.NewFramer(nc, nc)}
	sc.enc = hpack.NewEncoder(&sc.ebuf)
	sc.dec = hpack.NewDecoder(4096, nil)
	sc.fr.ReadMetaHeaders = sc.dec
	return sc
}

// handshake reads the client preface and sends the server's.
func (sc *srvConn) handshake() error {
	buf := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(sc.nc, buf); err != nil || string(buf) != http2.ClientPreface {
		return errors.New("bad preface")
	}
	return sc.fr.WriteSettings(sc.settings...)
}

// request is one request the server read.
type request struct {
	id     uint32
	fields map[string]string
	body   []byte
	end    bool
}

// next reads frames until a stream has sent HEADERS and a whole message (or ended); control
// frames are answered.
func (sc *srvConn) next() (*request, error) {
	if sc.open == nil {
		sc.open = map[uint32]*request{}
	}
	reqs := sc.open
	for {
		f, err := sc.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := sc.fr.WriteSettingsAck(); err != nil {
					return nil, err
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = sc.fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			r := &request{id: f.StreamID, fields: map[string]string{}, end: f.StreamEnded()}
			for _, hf := range f.Fields {
				r.fields[hf.Name] = hf.Value
			}
			reqs[f.StreamID] = r
			if r.end {
				return r, nil
			}
		case *http2.DataFrame:
			r := reqs[f.StreamID]
			if r == nil {
				continue
			}
			r.body = append(r.body, f.Data()...)
			r.end = f.StreamEnded()
			if n := len(f.Data()); n > 0 {
				_ = sc.fr.WriteWindowUpdate(0, uint32(n))
				_ = sc.fr.WriteWindowUpdate(f.StreamID, uint32(n))
			}
			if len(r.body) >= PrefixLen && len(r.body) == PrefixLen+int(be32(r.body[1:])) || r.end {
				got := *r
				r.body = nil // the stream's next message
				if r.end {
					delete(reqs, f.StreamID)
				}
				return &got, nil
			}
		}
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// headers sends a header block with the given name/value pairs.
func (sc *srvConn) headers(id uint32, end bool, kv ...string) error {
	sc.ebuf.Reset()
	for i := 0; i < len(kv); i += 2 {
		_ = sc.enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	return sc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: sc.ebuf.Bytes(), EndStream: end, EndHeaders: true})
}

// message sends msg as one length-prefixed message, in DATA frames of at most chunk bytes.
func (sc *srvConn) message(id uint32, msg []byte, chunk int) error {
	b := append(make([]byte, PrefixLen), msg...)
	PutPrefix(b)
	for len(b) > 0 {
		n := min(chunk, len(b))
		if err := sc.fr.WriteData(id, false, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// reply answers a request with headers, msg and OK trailers.
func (sc *srvConn) reply(id uint32, msg []byte) error {
	if err := sc.headers(id, false, ":status", "200", "content-type", "application/grpc"); err != nil {
		return err
	}
	if err := sc.message(id, msg, 16384); err != nil {
		return err
	}
	return sc.headers(id, true, "grpc-status", "0")
}

// serveOK answers every request with msg.
func serveOK(msg []byte) func(*srvConn) {
	return func(sc *srvConn) {
		for {
			r, err := sc.next()
			if err != nil || sc.reply(r.id, msg) != nil {
				return
			}
		}
	}
}

// okReply is a SUCCESS Echo reply with a 4-byte payload (docs/ozone-echo.md, vector V3).
var okReply = []byte{0x08, 0x16, 0x12, 0x00, 0x18, 0x01, 0xba, 0x01, 0x06, 0x0a, 0x04, 1, 2, 3, 4}

// testRequest is a message to send: its bytes do not matter to the fake server.
func testRequest() []byte {
	b := append(make([]byte, PrefixLen), 0x08, 0x16)
	PutPrefix(b)
	return b
}

// newTestChannel is a Channel to addr, closed when the test ends.
func newTestChannel(t *testing.T, addr string, timeout time.Duration) *Channel {
	t.Helper()
	ch, err := NewChannel(Config{Addr: addr, Path: "/hadoop.hdds.datanode.XceiverClientProtocolService/send", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	return ch
}

// call makes one new-stream call.
func call(ch *Channel, timeout time.Duration) (*Reply, error) {
	r := new(Reply)
	return r, ch.RoundTrip(context.Background(), timeout, testRequest(), r)
}

// setSettings makes the server's preface carry settings, from the next connection on.
func (s *fakeServer) setSettings(settings ...http2.Setting) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings = settings
}

// activeCount is how many streams c carries or has queued.
func (c *conn) activeCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active + len(c.pending)
}
