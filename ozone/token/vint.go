package token

import (
	"errors"
	"fmt"
	"math"
)

// Hadoop's WritableUtils variable-length long ("VInt"/"VLong"), used for the
// lengths inside a Token Writable. It is not a protobuf varint: small values
// fit one signed byte, larger ones get a length-prefix byte and big-endian bytes.
// Hadoop: hadoop-common-project/hadoop-common/src/main/java/org/apache/hadoop/io/WritableUtils.java

// errShortVInt reports a VInt cut off by the end of the input.
var errShortVInt = errors.New("vint: unexpected end of input")

// AppendVInt appends the Hadoop VInt encoding of v to b.
func AppendVInt(b []byte, v int64) []byte {
	if v >= -112 && v <= 127 {
		return append(b, byte(int8(v)))
	}
	base := int64(-112)
	if v < 0 {
		v = ^v // the complement is non-negative and needs the same byte count
		base = -120
	}
	n := 0
	for tmp := v; tmp != 0; tmp >>= 8 {
		n++
	}
	b = append(b, byte(int8(base-int64(n))))
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// ReadVInt decodes one Hadoop VInt from the start of b and returns the value
// and the number of bytes it used. Like Hadoop it accepts non-minimal encodings.
func ReadVInt(b []byte) (v int64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, errShortVInt
	}
	first := int8(b[0])
	if first >= -112 {
		return int64(first), 1, nil
	}
	negative := first < -120
	size := -int(first) - 112
	if negative {
		size = -int(first) - 120
	}
	if len(b) < 1+size {
		return 0, 0, errShortVInt
	}
	var x uint64
	for _, c := range b[1 : 1+size] {
		x = x<<8 | uint64(c)
	}
	v = int64(x)
	if negative {
		v = ^v
	}
	return v, 1 + size, nil
}

// readVInt32 is WritableUtils.readVInt: a VLong that must fit an int32.
func readVInt32(b []byte) (int32, int, error) {
	v, n, err := ReadVInt(b)
	if err != nil {
		return 0, 0, err
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, 0, fmt.Errorf("vint: value %d too long to fit in integer", v)
	}
	return int32(v), n, nil
}
