package h2

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2/hpack"
)

// requestBlocks encodes a connection's request header blocks (PROTOCOL-HTTP2.md, Requests:
// :method, :scheme, :path, :authority, content-type, user-agent, te, and grpc-timeout when the
// call has one). Every request carries the same fields, so after the first the block is a
// handful of indexes into the connection's dynamic table (RFC 7541, sections 2.3 and 6.1). The
// blocks come from x/net's HPACK encoder, which keeps the table the server's decoder mirrors;
// a block is cached only while encoding it again would not change that table: it is encoded
// twice, the first result is sent, and a second result that differs means the first inserted
// entries, which moves the indexes of every cached block.
type requestBlocks struct {
	enc      *hpack.Encoder
	buf      bytes.Buffer
	fields   []hpack.HeaderField // without grpc-timeout
	timeout  time.Duration       // the usual timeout
	tmoField hpack.HeaderField   // grpc-timeout of the usual timeout
	maxTable uint32
	cache    [2][]byte // without grpc-timeout, with the usual one
	scratch  []byte
}

func (b *requestBlocks) init(cfg Config) {
	scheme := "http"
	if cfg.TLS != nil {
		scheme = "https"
	}
	b.fields = []hpack.HeaderField{
		{Name: ":method", Value: "POST"},
		{Name: ":scheme", Value: scheme},
		{Name: ":path", Value: cfg.Path},
		{Name: ":authority", Value: cfg.Authority},
		{Name: "content-type", Value: "application/grpc"},
		{Name: "user-agent", Value: cfg.UserAgent},
		{Name: "te", Value: "trailers"},
	}
	b.timeout = cfg.Timeout
	if cfg.Timeout > 0 {
		b.tmoField = hpack.HeaderField{Name: "grpc-timeout", Value: string(appendTimeout(nil, cfg.Timeout))}
	}
	b.enc = hpack.NewEncoder(&b.buf)
	b.maxTable = initialTableSize
}

// setTableSize applies the server's SETTINGS_HEADER_TABLE_SIZE: the encoder signals a smaller
// table at the start of its next block (RFC 7541, section 4.2), and every cached block is void.
func (b *requestBlocks) setTableSize(v uint32) {
	b.enc.SetMaxDynamicTableSizeLimit(v)
	b.maxTable = min(v, initialTableSize)
	b.cache = [2][]byte{}
}

// block returns the header block of a request with timeout d (0: no grpc-timeout). It is
// valid until the next call.
func (b *requestBlocks) block(d time.Duration) []byte {
	kind := 0
	if d > 0 && d == b.timeout {
		kind = 1
	}
	blk := b.cache[kind]
	if blk == nil {
		first := b.encode(kind)
		second := b.encode(kind)
		if !bytes.Equal(first, second) {
			b.cache = [2][]byte{}
		}
		b.cache[kind] = second
		blk = first
	}
	if d <= 0 || kind == 1 {
		return blk
	}
	// Any other timeout is a literal that is not indexed, so the table does not change.
	b.scratch = append(b.scratch[:0], blk...)
	b.scratch = append(b.scratch, 0x00, byte(len("grpc-timeout")))
	b.scratch = append(b.scratch, "grpc-timeout"...)
	v := appendTimeout(nil, d)
	b.scratch = append(b.scratch, byte(len(v)))
	b.scratch = append(b.scratch, v...)
	return b.scratch
}

// encode runs the encoder over the fields of kind and returns a copy of the block. When the
// fields do not fit the table together they are sent as literals that are never indexed, so
// no entry is ever evicted behind a cached block.
func (b *requestBlocks) encode(kind int) []byte {
	fits := b.size() <= b.maxTable
	b.buf.Reset()
	for _, f := range b.fields {
		f.Sensitive = !fits
		_ = b.enc.WriteField(f)
	}
	if kind == 1 {
		f := b.tmoField
		f.Sensitive = !fits
		_ = b.enc.WriteField(f)
	}
	return bytes.Clone(b.buf.Bytes())
}

// size is what every field would take in the dynamic table.
func (b *requestBlocks) size() uint32 {
	n := b.tmoField.Size()
	for _, f := range b.fields {
		n += f.Size()
	}
	return n
}

// headerBlock is what the reader gathers from one response header block.
type headerBlock struct {
	st         *stream // nil: the block is decoded (the table must follow) and dropped
	endStream  bool
	status     int // :status, 0 when absent
	badStatus  string
	grpcType   bool // content-type application/grpc...
	ctype      string
	code       int // grpc-status, -1 when absent
	badCode    string
	message    string
	hasMessage bool
}

// onField is the HPACK decoder's callback.
func (c *conn) onField(f hpack.HeaderField) {
	h := &c.hdr
	if h.st == nil {
		return
	}
	switch f.Name {
	case ":status":
		s, err := strconv.Atoi(f.Value)
		if err != nil {
			h.badStatus = f.Value
		}
		h.status = s
	case "content-type":
		h.ctype = f.Value
		h.grpcType = isGRPCType(f.Value)
	case "grpc-status":
		v, err := strconv.ParseUint(f.Value, 10, 32)
		if err != nil {
			h.badCode = f.Value
			return
		}
		h.code = int(v)
	case "grpc-message":
		h.message, h.hasMessage = f.Value, true
	}
}

// isGRPCType reports a gRPC content-type: application/grpc, alone or followed by "+" or ";"
// (PROTOCOL-HTTP2.md, Content-Type).
func isGRPCType(v string) bool {
	const t = "application/grpc"
	if len(v) < len(t) || !strings.EqualFold(v[:len(t)], t) {
		return false
	}
	return len(v) == len(t) || v[len(t)] == '+' || v[len(t)] == ';'
}
