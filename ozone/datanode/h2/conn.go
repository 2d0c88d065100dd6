package h2

import (
	"bufio"
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Flow-control and buffer sizes of a connection.
const (
	// recvWindow is the receive window the client grants, per stream and for the connection:
	// 2^30-1 bytes, h2load's -w 30 -W 30. Replies are read as they arrive and only their size
	// is kept, so a large window costs no memory and saves WINDOW_UPDATE round trips.
	recvWindow = 1<<30 - 1
	// windowUpdateAt is how much received data is acknowledged with one WINDOW_UPDATE.
	windowUpdateAt = recvWindow / 2
	// defaultWindow is HTTP/2's initial window before SETTINGS change it (RFC 9113, 6.9.2).
	defaultWindow = 65535
	// defaultMaxFrame is SETTINGS_MAX_FRAME_SIZE's initial value (RFC 9113, 6.5.2); the client
	// keeps it for what it reads.
	defaultMaxFrame = 16384
	// readBufSize holds two whole frames of the largest size the client accepts.
	readBufSize = 2 * defaultMaxFrame
	// writeBatchMax is the most the writer puts into one write before sending it.
	writeBatchMax = 256 << 10
	// maxHeaderString bounds one decoded header field (grpc-message can be long).
	maxHeaderString = 1 << 20
	// maxStreamID is the largest client stream id (RFC 9113, 5.1.1).
	maxStreamID = 1<<31 - 1
)

// conn is one HTTP/2 connection: its reader goroutine reads frames and completes calls, its
// writer goroutine sends what calls and the reader queued. State shared between them and the
// callers is guarded by mu.
type conn struct {
	ch     *Channel
	nc     net.Conn
	usable atomic.Bool // new calls may use it

	// reader side
	br      *bufio.Reader
	rf      *http2.Framer // reads frame headers and the rare frames it parses whole
	dec     *hpack.Decoder
	hdr     headerBlock // the header block being read
	cur     *stream     // the stream of the last frame read, held with a reference
	unacked uint32      // connection-level data not yet acknowledged
	settled bool        // the server's first SETTINGS has arrived

	// writer side
	wbuf   writeBuf
	wf     *http2.Framer // writes into wbuf
	blocks requestBlocks

	wake chan struct{} // cap 1: the writer has work
	done chan struct{} // closed when the connection failed

	mu          sync.Mutex
	streams     map[uint32]*stream // open streams by id
	pending     []*stream          // streams with HEADERS or DATA to write, in order
	ctrl        []ctrlFrame        // control frames to write first
	free        []*stream          // recycled streams
	nextID      uint32
	active      int    // streams with an id that are not closed
	maxStreams  uint32 // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	sendWindow  int64  // connection-level send window
	initWindow  int64  // the server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame    uint32 // the server's SETTINGS_MAX_FRAME_SIZE
	tableSize   uint32 // the server's SETTINGS_HEADER_TABLE_SIZE, to apply before the next block
	tableChange bool
	draining    bool  // GOAWAY received or ids exhausted: no new streams
	err         error // why the connection failed; nil while it works
}

// ctrlFrame is a control frame the writer sends before any stream's frames.
type ctrlFrame struct {
	typ  http2.FrameType
	id   uint32
	val  uint32 // error code, window increment
	ping [8]byte
}

// writeBuf collects one write.
type writeBuf struct{ b []byte }

func (w *writeBuf) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func newConn(ch *Channel, nc net.Conn) *conn {
	c := &conn{
		ch:         ch,
		nc:         nc,
		br:         bufio.NewReaderSize(nc, readBufSize),
		wake:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		streams:    map[uint32]*stream{},
		nextID:     1,
		maxStreams: ^uint32(0),
		sendWindow: defaultWindow,
		initWindow: defaultWindow,
		maxFrame:   defaultMaxFrame,
	}
	c.rf = http2.NewFramer(nil, c.br)
	c.rf.SetMaxReadFrameSize(defaultMaxFrame)
	c.wf = http2.NewFramer(&c.wbuf, nil)
	c.dec = hpack.NewDecoder(initialTableSize, c.onField)
	c.dec.SetMaxStringLength(maxHeaderString)
	c.blocks.init(ch.cfg)
	c.usable.Store(true)
	return c
}

// initialTableSize is SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113, 6.5.2), both ways.
const initialTableSize = 4096

// start sends the connection preface (RFC 9113, 3.4): the magic string, SETTINGS (no push;
// recvWindow per stream) and a WINDOW_UPDATE that opens the connection's window as far. The
// server's SETTINGS need not be awaited before the first request.
func (c *conn) start() error {
	c.wbuf.b = append(c.wbuf.b[:0], http2.ClientPreface...)
	_ = c.wf.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: recvWindow})
	_ = c.wf.WriteWindowUpdate(0, recvWindow-defaultWindow)
	_, err := c.nc.Write(c.wbuf.b)
	c.wbuf.b = c.wbuf.b[:0]
	return err
}

// kick wakes the writer.
func (c *conn) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// queueCtrlLocked queues a control frame.
func (c *conn) queueCtrlLocked(f ctrlFrame) {
	c.ctrl = append(c.ctrl, f)
}

// fail ends the connection: every call on it fails with err, both goroutines stop.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	c.ch.retire(c)
	for _, st := range c.streams {
		c.endLocked(st, err)
	}
	for _, st := range c.pending {
		c.endLocked(st, err)
		st.inPending = false
		c.releaseLocked(st)
	}
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
	_ = c.nc.Close()
}

// drainedLocked closes a draining connection once it carries no stream.
func (c *conn) drainedLocked() bool {
	return c.draining && c.active == 0 && len(c.pending) == 0
}
