package h2

import (
	"encoding/binary"
	"errors"
	"fmt"
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
