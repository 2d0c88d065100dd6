package h2

import (
	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
