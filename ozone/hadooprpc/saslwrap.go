package hadooprpc

import (
	"errors"
	"fmt"
	"net"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// wrappedClientConn is the client's byte stream after integrity or privacy was negotiated: each
// Write goes out as WRAP packets of at most chunk plaintext bytes (Hadoop's WrappedOutputStream)
// and Read returns the unwrapped content of the server's WRAP packets (WrappedInputStream).
// Deadlines, addresses and Close are the socket's. Reads and writes may run concurrently.
type wrappedClientConn struct {
	net.Conn
	gss    *kerberos.Context
	seal   bool
	chunk  int
	maxLen int

	raw   []byte // bytes read from the socket, not yet a whole packet
	plain []byte // unwrapped bytes not yet returned
	buf   [16 << 10]byte
}

func newWrappedClientConn(nc net.Conn, gss *kerberos.Context, seal bool, chunk, maxLen int) *wrappedClientConn {
	return &wrappedClientConn{Conn: nc, gss: gss, seal: seal, chunk: chunk, maxLen: maxLen}
}

// saslWrapHeader is the request header of a WRAP packet (callId -33, empty client id).
var saslWrapHeader = wire.RequestHeader(wire.CallIDSASL, []byte{}, -1)

func (w *wrappedClientConn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n := min(w.chunk, len(b)-done)
		tok, err := w.gss.Wrap(b[done:done+n], w.seal)
		if err != nil {
			return done, err
		}
		frame, err := wire.AppendFrame(nil, saslWrapHeader, &hadooppb.RpcSaslProto{State: hadooppb.RpcSaslProto_WRAP.Enum(), Token: tok})
		if err != nil {
			return done, err
		}
		if _, err := w.Conn.Write(frame); err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

// Read keeps partial packets across socket timeouts, so the caller's read deadlines (pings,
// idle close) never cut a packet.
func (w *wrappedClientConn) Read(p []byte) (int, error) {
	for len(w.plain) == 0 {
		frame, ok, err := wire.NextFrame(w.raw, w.maxLen)
		if err != nil {
			return 0, fmt.Errorf("%w: %v", ErrBadResponse, err)
		}
		if ok {
			w.raw = w.raw[4+len(frame):]
			if w.plain, err = w.unwrapResponse(frame); err != nil {
				return 0, err
			}
			continue
		}
		n, err := w.Conn.Read(w.buf[:])
		w.raw = append(w.raw, w.buf[:n]...)
		if err != nil && n == 0 {
			return 0, err
		}
	}
	n := copy(p, w.plain)
	w.plain = w.plain[n:]
	return n, nil
}

// errNotWrapped is Hadoop's "Server sent non-wrapped response".
var errNotWrapped = errors.New("SASL: Server sent non-wrapped response")

// unwrapResponse opens one server packet: it must be a SASL WRAP (callId -33).
func (w *wrappedClientConn) unwrapResponse(frame []byte) ([]byte, error) {
	r, err := parseResponse(frame)
	if err != nil {
		return nil, err
	}
	h := r.header
	if h.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS {
		return nil, remoteError(h)
	}
	if int32(h.GetCallId()) != wire.CallIDSASL {
		return nil, fmt.Errorf("%w: %w (callId %d)", ErrBadResponse, errNotWrapped, int32(h.GetCallId()))
	}
	var m hadooppb.RpcSaslProto
	if err := proto.Unmarshal(r.body, &m); err != nil || m.GetState() != hadooppb.RpcSaslProto_WRAP {
		return nil, fmt.Errorf("%w: %w", ErrBadResponse, errNotWrapped)
	}
	b, err := wire.OpenWrapped(w.gss, m.GetToken(), w.seal)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return b, nil
}
