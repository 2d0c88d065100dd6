package h2

import (
	"encoding/binary"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// PrefixLen is the length of a gRPC message prefix: one compressed-flag byte and a 4-byte
// big-endian length (PROTOCOL-HTTP2.md, Length-Prefixed-Message).
const PrefixLen = 5

// PutPrefix writes the prefix of an uncompressed message into b[:PrefixLen], for the message
// b[PrefixLen:].
func PutPrefix(b []byte) {
	b[0] = 0
	binary.BigEndian.PutUint32(b[1:PrefixLen], uint32(len(b)-PrefixLen))
}

// msgReader splits a stream's DATA into gRPC messages. DATA frame boundaries have no relation
// to message boundaries (PROTOCOL-HTTP2.md, Data Frames), so it keeps its place across frames.
// Of a message it keeps only what a caller needs to judge it (fields), and counts its size.
type msgReader struct {
	pre    [PrefixLen]byte
	npre   int
	inBody bool
	left   int // body bytes still to come
	size   int // the current message's length
	keep   bool
	fields []byte
	sc     scanner
}

// prefix consumes prefix bytes from p; once the prefix is whole the body starts. It fails on a
// compressed or oversized message: no compression is ever offered (the request has no
// grpc-accept-encoding), and maxSize is the caller's receive limit.
func (m *msgReader) prefix(p []byte, maxSize int) (int, error) {
	n := copy(m.pre[m.npre:], p)
	m.npre += n
	if m.npre < PrefixLen {
		return n, nil
	}
	size := binary.BigEndian.Uint32(m.pre[1:])
	switch {
	case m.pre[0] == 1:
		return n, status.Error(codes.Internal, "grpc: compressed flag set with identity or empty encoding")
	case m.pre[0] != 0:
		return n, status.Errorf(codes.Internal, "grpc: received unexpected payload format %d", m.pre[0])
	case uint64(size) > uint64(maxSize):
		return n, status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", size, maxSize)
	}
	m.npre, m.inBody, m.left, m.size = 0, true, int(size), int(size)
	m.sc = scanner{}
	return n, nil
}

// body consumes body bytes from p, keeping fields when keep is set.
func (m *msgReader) body(p []byte) int {
	n := min(len(p), m.left)
	m.left -= n
	if m.keep {
		m.fields = m.sc.scan(p[:n], m.fields, m.left)
	}
	return n
}

// complete reports a message whose body has been read whole.
func (m *msgReader) complete() bool { return m.inBody && m.left == 0 }

// next ends the current message.
func (m *msgReader) next() { m.inBody = false }

// reset forgets any partial message.
func (m *msgReader) reset() {
	m.npre, m.inBody, m.left, m.keep = 0, false, 0, false
}

// elideMin is the shortest length-delimited value the scanner leaves out.
const elideMin = 32

// Field numbers of ContainerCommandResponseProto the scanner knows
// (Ozone: DatanodeClientProtocol.proto): result decides whether values may be left out;
// message, the error text, is always kept.
const (
	fieldResult  protowire.Number = 3
	fieldMessage protowire.Number = 4
	resultOK                      = 1 // Result.SUCCESS
)

// scanner states.
const (
	sTag = iota
	sVarint
	sLen
	sCopy
	sSkip
	sVerbatim
)

// scanner copies a protobuf message, arriving in pieces, into a shorter one: after a result of
// SUCCESS every length-delimited field longer than elideMin (the Echo payload) except the
// message text is written with length 0 and its value skipped. Anything it does not follow
// (an invalid wire type, an over-long varint, a value longer than the rest of the message) is
// copied verbatim from there on, so a parser reaches the same verdict on the copy as on the
// original; fuzz_test.go checks that against CheckReply.
type scanner struct {
	state  int
	n      int      // bytes still to copy or skip
	buf    [20]byte // a tag, or a tag and a length, or a varint value
	nbuf   int
	tagLen int // the tag's bytes in buf while its length is read
	num    protowire.Number
	value  uint64 // of a result varint
	okSeen bool   // the last result field was SUCCESS
}

// scan processes p; rest is how many body bytes follow p. A message that ends inside a tag, a
// varint or a length keeps those bytes, so that it fails to parse as the original does.
func (s *scanner) scan(p, out []byte, rest int) []byte {
	out = s.pieces(p, out, rest)
	if rest == 0 && s.nbuf > 0 {
		out = s.verbatim(out)
	}
	return out
}

func (s *scanner) pieces(p, out []byte, rest int) []byte {
	for len(p) > 0 {
		switch s.state {
		case sCopy, sSkip:
			k := min(len(p), s.n)
			if s.state == sCopy {
				out = append(out, p[:k]...)
			}
			p, s.n = p[k:], s.n-k
			if s.n == 0 {
				s.state = sTag
			}
		case sVerbatim:
			return append(out, p...)
		default:
			c := p[0]
			p = p[1:]
			out = s.byte(c, out, len(p)+rest)
		}
	}
	return out
}

// byte feeds one byte of a tag, a varint or a length; left is how many body bytes follow it.
func (s *scanner) byte(c byte, out []byte, left int) []byte {
	s.buf[s.nbuf] = c
	s.nbuf++
	if c >= 0x80 {
		if s.nbuf-s.tagLen >= 10 { // longer than any varint
			return s.verbatim(out)
		}
		return out
	}
	switch s.state {
	case sTag:
		return s.tag(out)
	case sVarint:
		if s.num == fieldResult {
			v, _ := protowire.ConsumeVarint(s.buf[:s.nbuf])
			s.okSeen = v == resultOK
		}
		return s.flush(out, sTag)
	default: // sLen
		return s.length(out, left)
	}
}

func (s *scanner) tag(out []byte) []byte {
	num, typ, n := protowire.ConsumeTag(s.buf[:s.nbuf])
	if n < 0 {
		return s.verbatim(out)
	}
	s.num = num
	switch typ {
	case protowire.VarintType:
		return s.flush(out, sVarint)
	case protowire.Fixed32Type:
		s.n = 4
		return s.flush(out, sCopy)
	case protowire.Fixed64Type:
		s.n = 8
		return s.flush(out, sCopy)
	case protowire.BytesType:
		s.state, s.tagLen = sLen, s.nbuf // the tag stays in buf until the length is known
		return out
	case protowire.StartGroupType, protowire.EndGroupType:
		return s.flush(out, sTag)
	}
	return s.verbatim(out)
}

// length decides, once a length-delimited field's length is known, whether its value is kept.
func (s *scanner) length(out []byte, left int) []byte {
	start := s.tagLen
	s.tagLen = 0
	l, n := protowire.ConsumeVarint(s.buf[start:s.nbuf])
	if n < 0 || l > uint64(left) {
		return s.verbatim(out)
	}
	if s.okSeen && s.num != fieldMessage && l > elideMin {
		out = append(out, s.buf[:start]...)
		out = append(out, 0)
		s.nbuf, s.n, s.state = 0, int(l), sSkip
		return out
	}
	s.n = int(l)
	if s.n == 0 {
		return s.flush(out, sTag)
	}
	return s.flush(out, sCopy)
}

// flush writes the gathered bytes and moves on. A varint field's value bytes follow its tag
// through buf too: flush after the tag empties buf, so in sVarint buf holds only the value.
func (s *scanner) flush(out []byte, next int) []byte {
	out = append(out, s.buf[:s.nbuf]...)
	s.nbuf, s.state = 0, next
	return out
}

func (s *scanner) verbatim(out []byte) []byte {
	out = append(out, s.buf[:s.nbuf]...)
	s.nbuf, s.tagLen, s.state = 0, 0, sVerbatim
	return out
}
