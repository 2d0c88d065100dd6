package dnsim

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// uuid is a 128-bit DataNode id in Java's java.util.UUID layout.
type uuid [16]byte

// newUUID returns a random version-4 UUID.
func newUUID() uuid {
	var u uuid
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails on supported platforms
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// parseUUID accepts the canonical 8-4-4-4-12 hex form that Java's
// UUID.toString produces, which is what DataNodes advertise.
func parseUUID(s string) (uuid, error) {
	var u uuid
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("uuid %q: want the 8-4-4-4-12 hex form", s)
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return u, fmt.Errorf("uuid %q: %w", s, err)
	}
	return u, nil
}

func (u uuid) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// bits splits the UUID the way hdds.proto's UUID message carries it:
// mostSigBits = first 8 bytes, leastSigBits = last 8 bytes, both signed
// big-endian (spec ozone-scm.md §12.5).
func (u uuid) bits() (most, least int64) {
	return int64(binary.BigEndian.Uint64(u[:8])), int64(binary.BigEndian.Uint64(u[8:]))
}
