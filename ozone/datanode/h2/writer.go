package h2

import (
	"runtime"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// writeLoop sends, at each wake-up, everything queued since the last one in as few writes as
// the batch limit allows: control frames first, then the streams' HEADERS and DATA in the
// order they were queued, as far as flow control lets them.
func (c *conn) writeLoop() {
	defer c.ch.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		// The callers a read completed are runnable now and about to queue their next calls:
		// letting them run first makes this one write instead of one per caller.
		runtime.Gosched()
		for {
			c.mu.Lock()
			if c.err != nil {
				c.mu.Unlock()
				return
			}
			full := c.fillLocked()
			drained := c.drainedLocked()
			c.mu.Unlock()
			if len(c.wbuf.b) > 0 {
				_, err := c.nc.Write(c.wbuf.b)
				c.wbuf.b = c.wbuf.b[:0]
				if err != nil {
					c.fail(status.Errorf(codes.Unavailable, "connection to %s lost: %v", c.ch.cfg.Addr, err))
					return
				}
			}
			if drained {
				c.fail(unprocessed("the connection to %s was closed after GOAWAY", c.ch.cfg.Addr))
				return
			}
			if !full {
				break
			}
		}
	}
}

// fillLocked encodes queued frames into wbuf; it reports a batch that filled up before the
// queue emptied.
func (c *conn) fillLocked() (full bool) {
	for _, f := range c.ctrl {
		c.writeCtrl(f)
	}
	c.ctrl = c.ctrl[:0]
	if c.tableChange {
		c.tableChange = false
		c.blocks.setTableSize(c.tableSize)
	}
	keep := c.pending[:0]
	for i, st := range c.pending {
		if len(c.wbuf.b) >= writeBatchMax {
			keep = append(keep, c.pending[i:]...)
			full = true
			break
		}
		if !c.sendLocked(st) {
			keep = append(keep, st)
			continue
		}
		st.inPending = false
		c.releaseLocked(st)
	}
	clear(c.pending[len(keep):])
	c.pending = keep
	return full
}

// sendLocked writes what st may send now; it reports whether st is done with the writer.
func (c *conn) sendLocked(st *stream) bool {
	if st.closed {
		return true
	}
	if st.headers && !c.openLocked(st) {
		return st.closed
	}
	for len(st.out) > 0 {
		n := min(int64(len(st.out)), int64(c.maxFrame), c.sendWindow, st.sendWindow)
		if n <= 0 || len(c.wbuf.b) >= writeBatchMax {
			return false
		}
		end := st.half && n == int64(len(st.out))
		_ = c.wf.WriteData(st.id, end, st.out[:n])
		st.out = st.out[n:]
		c.sendWindow -= n
		st.sendWindow -= n
		st.sentEnd = st.sentEnd || end
	}
	if st.half && !st.sentEnd {
		_ = c.wf.WriteData(st.id, true, nil)
		st.sentEnd = true
	}
	return true
}

// openLocked gives st its id and writes its HEADERS; it reports false when st must wait for a
// stream slot (SETTINGS_MAX_CONCURRENT_STREAMS) or was failed because the connection takes no
// new streams.
func (c *conn) openLocked(st *stream) bool {
	switch {
	case c.draining:
		c.endLocked(st, unprocessed("the connection to %s takes no new streams (GOAWAY)", c.ch.cfg.Addr))
		return false
	case c.nextID > maxStreamID:
		c.draining = true
		c.ch.retire(c)
		c.endLocked(st, unprocessed("the connection to %s has used every stream id", c.ch.cfg.Addr))
		return false
	case uint32(c.active) >= c.maxStreams:
		return false
	}
	st.id = c.nextID
	c.nextID += 2
	c.streams[st.id] = st
	st.inMap = true
	st.refs++
	c.active++
	st.sendWindow = c.initWindow
	st.headers = false
	block := c.blocks.block(st.timeout)
	_ = c.wf.WriteHeaders(http2.HeadersFrameParam{StreamID: st.id, BlockFragment: block, EndHeaders: true})
	return true
}

func (c *conn) writeCtrl(f ctrlFrame) {
	switch f.typ {
	case http2.FrameSettings:
		_ = c.wf.WriteSettingsAck()
	case http2.FramePing:
		_ = c.wf.WritePing(true, f.ping)
	case http2.FrameWindowUpdate:
		_ = c.wf.WriteWindowUpdate(f.id, f.val)
	case http2.FrameRSTStream:
		_ = c.wf.WriteRSTStream(f.id, http2.ErrCode(f.val))
	}
}
