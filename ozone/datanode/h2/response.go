package h2

import (
	"fmt"
	"net/http"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// readHeaders feeds a HEADERS or CONTINUATION frame's field block to the connection's HPACK
// decoder and acts on the block once it is whole. Every block is decoded, also one for a stream
// the client no longer tracks: the decoder's table must follow the server's encoder.
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
