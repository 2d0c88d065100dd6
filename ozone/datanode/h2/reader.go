package h2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// connError is a connection error (RFC 9113, section 5.4.1): the reader sends GOAWAY with code
// and the connection ends.
type connError struct {
	code   http2.ErrCode
	reason string
}

func (e *connError) Error() string { return fmt.Sprintf("HTTP/2 %v: %s", e.code, e.reason) }

func protocolError(format string, args ...any) error {
	return &connError{http2.ErrCodeProtocol, fmt.Sprintf(format, args...)}
}

// readLoop reads frames until the connection fails.
func (c *conn) readLoop() {
	defer c.ch.wg.Done()
	err := c.readFrames()
	var ce *connError
	if errors.As(err, &ce) {
		c.goAway(ce.code)
	}
	select {
	case <-c.done: // failed elsewhere (Close, the writer)
	default:
		c.fail(status.Errorf(codes.Unavailable, "connection to %s: error reading from server: %v", c.ch.cfg.Addr, err))
	}
	c.mu.Lock()
	if c.cur != nil {
		c.releaseLocked(c.cur)
		c.cur = nil
	}
	c.mu.Unlock()
	c.ch.forget(c)
}

// goAway tells the server why the client ends the connection, best effort.
func (c *conn) goAway(code http2.ErrCode) {
	var w writeBuf
	f := http2.NewFramer(&w, nil)
	_ = f.WriteGoAway(0, code, nil)
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.nc.Write(w.b)
}

func (c *conn) readFrames() error {
	for {
		fh, err := c.rf.ReadFrameHeader()
		if err != nil {
			if errors.Is(err, http2.ErrFrameTooLarge) {
				return &connError{http2.ErrCodeFrameSize, err.Error()}
			}
			var ce http2.ConnectionError
			if errors.As(err, &ce) {
				return &connError{http2.ErrCode(ce), fmt.Sprint(c.rf.ErrorDetail())}
			}
			return err
		}
		if !c.settled && fh.Type != http2.FrameSettings {
			return protocolError("the server's first frame is %v, not SETTINGS", fh.Type)
		}
		if err := c.readFrame(fh); err != nil {
			return err
		}
	}
}

func (c *conn) readFrame(fh http2.FrameHeader) error {
	switch fh.Type {
	case http2.FrameData:
		return c.readData(fh)
	case http2.FrameHeaders, http2.FrameContinuation:
		return c.readHeaders(fh)
	case http2.FrameRSTStream:
		return c.readRST(fh)
	case http2.FrameSettings:
		return c.readSettings(fh)
	case http2.FramePing:
		return c.readPing(fh)
	case http2.FrameGoAway:
		return c.readGoAway(fh)
	case http2.FrameWindowUpdate:
		return c.readWindowUpdate(fh)
	case http2.FramePushPromise:
		return protocolError("PUSH_PROMISE with push disabled")
	}
	_, err := c.br.Discard(int(fh.Length)) // PRIORITY and unknown types are ignored
	return err
}

// lookup returns the open stream id, holding it as the reader's current stream.
func (c *conn) lookup(id uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.cur; cur != nil && (cur.id != id || !cur.inMap) {
		c.releaseLocked(cur)
		c.cur = nil
	}
	if c.cur == nil {
		if st := c.streams[id]; st != nil {
			st.refs++
			c.cur = st
		}
	}
	return c.cur
}

// fixed reads the payload of a fixed-size frame.
func (c *conn) fixed(fh http2.FrameHeader, n int) ([]byte, error) {
	if int(fh.Length) != n {
		return nil, &connError{http2.ErrCodeFrameSize, fmt.Sprintf("%v frame of %d bytes, want %d", fh.Type, fh.Length, n)}
	}
	p, err := c.br.Peek(n)
	if err != nil {
		return nil, err
	}
	_, _ = c.br.Discard(n)
	return p, nil
}

func (c *conn) readRST(fh http2.FrameHeader) error {
	p, err := c.fixed(fh, 4)
	if err != nil {
		return err
	}
	if fh.StreamID == 0 {
		return protocolError("RST_STREAM on stream 0")
	}
	code := http2.ErrCode(binary.BigEndian.Uint32(p))
	if st := c.lookup(fh.StreamID); st != nil {
		err := rstError(code)
		c.mu.Lock()
		switch {
		case code == http2.ErrCodeRefusedStream:
			err = &errUnprocessed{err}
		case code == http2.ErrCodeCancel && !st.deadline.IsZero() && !time.Now().Before(st.deadline):
			// The server cancelled at the deadline it was sent, which the client's own timer
			// has not acted on yet (PROTOCOL-HTTP2.md, Client Cancellation; grpc-go does the same).
			err = errDeadline
		}
		c.endLocked(st, err)
		c.mu.Unlock()
	}
	return nil
}

func (c *conn) readPing(fh http2.FrameHeader) error {
	p, err := c.fixed(fh, 8)
	if err != nil {
		return err
	}
	if fh.StreamID != 0 {
		return protocolError("PING on stream %d", fh.StreamID)
	}
	if !fh.Flags.Has(http2.FlagPingAck) {
		f := ctrlFrame{typ: http2.FramePing}
		copy(f.ping[:], p)
		c.mu.Lock()
		c.queueCtrlLocked(f)
		c.mu.Unlock()
		c.kick()
	}
	return nil
}

func (c *conn) readWindowUpdate(fh http2.FrameHeader) error {
	p, err := c.fixed(fh, 4)
	if err != nil {
		return err
	}
	incr := int64(binary.BigEndian.Uint32(p) & (1<<31 - 1))
	if fh.StreamID == 0 {
		if incr == 0 {
			return protocolError("WINDOW_UPDATE of 0 for the connection")
		}
		c.mu.Lock()
		c.sendWindow += incr
		over := c.sendWindow > maxWindow
		c.mu.Unlock()
		if over {
			return &connError{http2.ErrCodeFlowControl, "the connection's send window exceeds 2^31-1"}
		}
		c.kick()
		return nil
	}
	st := c.lookup(fh.StreamID)
	if st == nil {
		return nil
	}
	c.mu.Lock()
	st.sendWindow += incr
	if incr == 0 || st.sendWindow > maxWindow {
		c.resetLocked(st, http2.ErrCodeFlowControl, status.Error(codes.Internal, "stream flow-control window update out of range"))
	}
	c.mu.Unlock()
	c.kick()
	return nil
}

// maxWindow is the largest flow-control window (RFC 9113, section 6.9.1).
const maxWindow = 1<<31 - 1

func (c *conn) readSettings(fh http2.FrameHeader) error {
	if fh.Flags.Has(http2.FlagSettingsAck) {
		_, err := c.rf.ReadFrameForHeader(fh) // checks the empty payload
		return err
	}
	f, err := c.rf.ReadFrameForHeader(fh)
	if err != nil {
		return err
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok {
		return protocolError("SETTINGS frame of type %T", f)
	}
	c.mu.Lock()
	err = sf.ForeachSetting(c.applyLocked)
	if err == nil {
		c.queueCtrlLocked(ctrlFrame{typ: http2.FrameSettings})
	}
	c.mu.Unlock()
	c.settled = true
	c.kick()
	return err
}

// applyLocked applies one of the server's settings (RFC 9113, section 6.5.2).
func (c *conn) applyLocked(s http2.Setting) error {
	if err := s.Valid(); err != nil {
		var ce http2.ConnectionError
		if errors.As(err, &ce) {
			return &connError{http2.ErrCode(ce), fmt.Sprintf("setting %v", s)}
		}
		return err
	}
	switch s.ID {
	case http2.SettingHeaderTableSize:
		c.tableSize, c.tableChange = s.Val, true
	case http2.SettingMaxConcurrentStreams:
		c.maxStreams = s.Val
	case http2.SettingInitialWindowSize:
		delta := int64(s.Val) - c.initWindow
		c.initWindow = int64(s.Val)
		for _, st := range c.streams {
			st.sendWindow += delta
			if st.sendWindow > maxWindow {
				return &connError{http2.ErrCodeFlowControl, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream's window"}
			}
		}
	case http2.SettingMaxFrameSize:
		c.maxFrame = s.Val
	}
	return nil
}

func (c *conn) readGoAway(fh http2.FrameHeader) error {
	f, err := c.rf.ReadFrameForHeader(fh)
	if err != nil {
		return err
	}
	ga, ok := f.(*http2.GoAwayFrame)
	if !ok {
		return protocolError("GOAWAY frame of type %T", f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.draining = true
	c.ch.retire(c)
	for id, st := range c.streams {
		if id > ga.LastStreamID {
			c.endLocked(st, unprocessed("the server sent GOAWAY (%v, last stream %d) before stream %d", ga.ErrCode, ga.LastStreamID, id))
		}
	}
	if c.drainedLocked() {
		c.kick()
	}
	return nil
}

// readData passes a DATA frame's payload to its stream's message reader as it arrives, without
// holding the frame whole.
func (c *conn) readData(fh http2.FrameHeader) error {
	if fh.StreamID == 0 {
		return protocolError("DATA on stream 0")
	}
	n, pad := int(fh.Length), 0
	if fh.Flags.Has(http2.FlagDataPadded) {
		p, err := c.fixedPrefix(n)
		if err != nil {
			return err
		}
		pad, n = int(p), n-1
		if pad > n {
			return protocolError("DATA padding longer than its frame")
		}
		n -= pad
	}
	if err := c.ackConn(fh.Length); err != nil {
		return err
	}
	st := c.lookup(fh.StreamID)
	if st != nil && !st.gotHeaders {
		c.streamError(st, http2.ErrCodeProtocol, status.Error(codes.Internal, "received DATA before the response headers"))
		st = nil
	}
	var err error
	if st == nil {
		_, err = c.br.Discard(n)
	} else {
		err = c.feed(st, n)
	}
	if err != nil {
		return err
	}
	if _, err := c.br.Discard(pad); err != nil {
		return err
	}
	if st != nil {
		c.ackStream(st, fh.Length)
		if fh.Flags.Has(http2.FlagDataEndStream) {
			c.remoteEnd(st, errNoTrailers)
		}
	}
	return nil
}

// fixedPrefix reads the pad-length byte of a padded frame of n bytes.
func (c *conn) fixedPrefix(n int) (byte, error) {
	if n < 1 {
		return 0, protocolError("padded frame without its pad length")
	}
	b, err := c.br.ReadByte()
	return b, err
}

// feed gives n payload bytes to st's messages: each message's prefix is checked, its body
// scanned if the call wants it, and a whole message completes the waiting call.
func (c *conn) feed(st *stream, n int) error {
	m := &st.msg
	for n > 0 {
		p, err := c.br.Peek(min(n, c.br.Size()))
		if err != nil {
			return err
		}
		used := 0
		for {
			if m.complete() {
				c.messageDone(st)
				m.next()
			}
			if used == len(p) {
				break
			}
			if m.inBody {
				used += m.body(p[used:])
				continue
			}
			k, err := m.prefix(p[used:], c.ch.cfg.MaxRecvMsgSize)
			used += k
			if err != nil {
				c.streamError(st, http2.ErrCodeCancel, err)
				_, _ = c.br.Discard(len(p))
				_, err = c.br.Discard(n - len(p))
				return err
			}
			if m.inBody {
				c.messageStart(st)
			}
		}
		_, _ = c.br.Discard(len(p))
		n -= len(p)
	}
	return nil
}

// messageStart decides whether a message is kept: only for a call waiting for it.
func (c *conn) messageStart(st *stream) {
	c.mu.Lock()
	keep := st.waiting && !st.delivered && !st.closed
	if keep {
		st.msg.fields = st.msg.fields[:0]
	}
	st.msg.keep = keep
	c.mu.Unlock()
}

// messageDone completes the waiting call with a whole message.
func (c *conn) messageDone(st *stream) {
	if !st.msg.keep {
		return
	}
	st.msg.keep = false
	c.mu.Lock()
	if !st.closed && st.waiting && !st.delivered {
		st.size = st.msg.size
		c.deliverLocked(st, nil)
	}
	c.mu.Unlock()
}

// streamError fails one stream from the client's side.
func (c *conn) streamError(st *stream, code http2.ErrCode, err error) {
	st.msg.reset()
	c.mu.Lock()
	c.resetLocked(st, code, err)
	c.mu.Unlock()
}

// remoteEnd is the server's END_STREAM. When the client's side is still open the stream is
// reset with NO_ERROR (PROTOCOL-HTTP2.md, Early Server Closure).
func (c *conn) remoteEnd(st *stream, err error) {
	st.msg.reset()
	c.mu.Lock()
	if !st.closed && !st.sentEnd && !st.headers {
		c.queueCtrlLocked(ctrlFrame{typ: http2.FrameRSTStream, id: st.id, val: uint32(http2.ErrCodeNo)})
		c.kick()
	}
	c.endLocked(st, err)
	c.mu.Unlock()
}

// ackConn acknowledges received data for the connection once enough has arrived.
func (c *conn) ackConn(n uint32) error {
	c.unacked += n
	if c.unacked > recvWindow {
		return &connError{http2.ErrCodeFlowControl, "the server sent more than the connection's window"}
	}
	if c.unacked >= windowUpdateAt {
		c.mu.Lock()
		c.queueCtrlLocked(ctrlFrame{typ: http2.FrameWindowUpdate, val: c.unacked})
		c.mu.Unlock()
		c.unacked = 0
		c.kick()
	}
	return nil
}

// ackStream is ackConn for a long-lived stream's window.
func (c *conn) ackStream(st *stream, n uint32) {
	st.unacked += n
	if st.unacked < windowUpdateAt {
		return
	}
	c.mu.Lock()
	if st.inMap {
		c.queueCtrlLocked(ctrlFrame{typ: http2.FrameWindowUpdate, id: st.id, val: st.unacked})
		c.kick()
	}
	c.mu.Unlock()
	st.unacked = 0
}

func (c *conn) readHeaders(fh http2.FrameHeader) error {
	p, err := c.br.Peek(int(fh.Length))
	if err != nil {
		return err
	}
	frag := p
	if fh.Type == http2.FrameHeaders {
		if fh.StreamID == 0 {
			return protocolError("HEADERS on stream 0")
		}
		if frag, err = headerFragment(fh, p); err != nil {
			return err
		}
		c.hdr = headerBlock{st: c.lookup(fh.StreamID), endStream: fh.Flags.Has(http2.FlagHeadersEndStream), code: -1}
	}
	_, werr := c.dec.Write(frag)
	_, _ = c.br.Discard(len(p))
	if werr != nil {
		return &connError{http2.ErrCodeCompression, werr.Error()}
	}
	if !fh.Flags.Has(http2.FlagHeadersEndHeaders) {
		return nil
	}
	if err := c.dec.Close(); err != nil {
		return &connError{http2.ErrCodeCompression, err.Error()}
	}
	c.endHeaders()
	return nil
}

// headerFragment strips a HEADERS frame's padding and priority.
func headerFragment(fh http2.FrameHeader, p []byte) ([]byte, error) {
	pad := 0
	if fh.Flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 {
			return nil, protocolError("padded HEADERS without its pad length")
		}
		pad, p = int(p[0]), p[1:]
	}
	if fh.Flags.Has(http2.FlagHeadersPriority) {
		if len(p) < 5 {
			return nil, protocolError("HEADERS too short for its priority")
		}
		p = p[5:]
	}
	if pad > len(p) {
		return nil, protocolError("HEADERS padding longer than its frame")
	}
	return p[:len(p)-pad], nil
}

// endHeaders acts on a whole header block: response headers, trailers, or a trailers-only
// response (PROTOCOL-HTTP2.md, Responses).
func (c *conn) endHeaders() {
	h := &c.hdr
	st := h.st
	h.st = nil
	if st == nil {
		return
	}
	if !st.gotHeaders {
		if h.status >= 100 && h.status < 200 && h.badStatus == "" {
			if h.endStream {
				c.streamError(st, http2.ErrCodeProtocol, status.Errorf(codes.Internal, "informational status %d with END_STREAM", h.status))
			}
			return
		}
		if !h.grpcType {
			c.notGRPC(st, h)
			return
		}
		st.gotHeaders = true
		if !h.endStream {
			return
		}
	} else if !h.endStream {
		c.streamError(st, http2.ErrCodeProtocol, status.Error(codes.Internal, "a HEADERS frame cannot appear in the middle of a stream"))
		return
	}
	c.remoteEnd(st, trailerStatus(h))
}

// trailerStatus is the call's outcome from its trailers.
func trailerStatus(h *headerBlock) error {
	switch {
	case h.badCode != "":
		return status.Errorf(codes.Unknown, "transport: malformed grpc-status: %q", h.badCode)
	case h.code < 0:
		return status.Error(codes.Unknown, decodeMessage(h.message))
	}
	return streamStatus(codes.Code(h.code), decodeMessage(h.message))
}

// notGRPC fails a stream whose response is not gRPC, by its HTTP status (grpc's
// doc/http-grpc-status-mapping.md).
func (c *conn) notGRPC(st *stream, h *headerBlock) {
	code, what := codes.Internal, "missing HTTP status"
	switch {
	case h.badStatus != "":
		what = fmt.Sprintf("malformed HTTP status %q", h.badStatus)
	case h.status != 0:
		code, what = httpCode(h.status), fmt.Sprintf("unexpected HTTP status code received from server: %d (%s)", h.status, http.StatusText(h.status))
	}
	err := status.Errorf(code, "%s; content-type %q is not gRPC", what, h.ctype)
	if h.endStream {
		c.remoteEnd(st, err)
		return
	}
	c.streamError(st, http2.ErrCodeCancel, err)
}
