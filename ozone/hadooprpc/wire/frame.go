package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// readChunk bounds how much memory a declared length can claim before the bytes actually
// arrive, so a hostile length prefix cannot force a large allocation.
const readChunk = 64 << 10

// ReadN reads exactly n bytes, the body of a frame whose length was read, growing the buffer
// only as data arrives. It fails with io.ErrUnexpectedEOF when r ends first.
func ReadN(r io.Reader, n int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(min(n, readChunk))
	got, err := buf.ReadFrom(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, err
	}
	if got < int64(n) {
		return nil, io.ErrUnexpectedEOF
	}
	return buf.Bytes(), nil
}

// NextFrame returns the first whole length-prefixed frame in b, if b holds one. A length that
// is not positive or exceeds maxLen is an error: the stream cannot be resynchronised.
func NextFrame(b []byte, maxLen int) (frame []byte, ok bool, err error) {
	if len(b) < 4 {
		return nil, false, nil
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n <= 0 || int64(n) > int64(maxLen) {
		return nil, false, fmt.Errorf("wrapped packet length %d", n)
	}
	if len(b) < 4+int(n) {
		return nil, false, nil
	}
	return b[4 : 4+int(n)], true, nil
}

// AppendWritableString appends s as a Hadoop Writable string (int32 length, then UTF-8), the
// form of the class and message of the pre-v9 fatal reply (docs/hadoop-rpc.md#framing).
// Hadoop: org/apache/hadoop/ipc/Server.java (setupResponseOldVersionFatal).
func AppendWritableString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}
