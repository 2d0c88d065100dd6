package hadooprpc

import (
	"errors"
	"net"
	"time"
)

// pingReader reads from the socket, pinging after each ping interval of
// silence while calls are outstanding and closing the connection when idle.
// Timeouts are handled below the frame parser, so a frame is never cut.
// Hadoop: org/apache/hadoop/ipc/Client.java (PingInputStream).
type pingReader struct{ cn *conn }

func (p pingReader) Read(b []byte) (int, error) {
	cn := p.cn
	for {
		cn.mu.Lock()
		cn.armReadDeadline()
		cn.mu.Unlock()
		n, err := cn.nc.Read(b)
		if n > 0 {
			cn.mu.Lock()
			cn.quietSince = time.Now()
			cn.lastRead = cn.quietSince
			cn.mu.Unlock()
			return n, nil
		}
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			return 0, err
		}
		if err := cn.onReadTimeout(); err != nil {
			return 0, err
		}
	}
}

// armReadDeadline sets the socket's read deadline for the current state. It
// runs under mu, so a call registering concurrently (which re-arms it) and
// the reader cannot overwrite each other with stale values.
func (cn *conn) armReadDeadline() {
	dl := cn.quietSince.Add(cn.c.opts.PingInterval)
	if len(cn.pending) == 0 {
		dl = cn.lastUse.Add(cn.c.opts.IdleTimeout)
	}
	cn.nc.SetReadDeadline(dl)
}

func (cn *conn) onReadTimeout() error {
	now := time.Now()
	cn.mu.Lock()
	if cn.closed {
		cn.mu.Unlock()
		return net.ErrClosed
	}
	if len(cn.pending) == 0 {
		if now.Sub(cn.lastUse) >= cn.c.opts.IdleTimeout {
			// Close under mu so no call can register on a dying connection.
			cn.closed = true
			cn.mu.Unlock()
			cn.nc.Close()
			return errIdle
		}
		cn.mu.Unlock()
		return nil
	}
	due := now.Sub(cn.quietSince) >= cn.c.opts.PingInterval
	if due {
		cn.quietSince = now
	}
	cn.mu.Unlock()
	// A writer holding the socket means traffic is flowing; skip this ping
	// rather than block the reader behind it.
	if due && cn.wmu.TryLock() {
		_, err := cn.nc.Write(cn.ping)
		cn.wmu.Unlock()
		return err
	}
	return nil
}
