// Hand-written helpers beside the generated code: hdds.proto carries java.util.UUID values as two
// signed big-endian halves (docs/ozone-scm.md#container-and-pipeline-messages), and every package
// that reads or writes pipeline and DataNode ids needs the same conversions.

package hddspb

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// NewRandomUUID returns a random version-4 UUID as 16 bytes.
func NewRandomUUID() [16]byte {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read does not fail on supported platforms
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// ParseUUIDText reads the canonical 8-4-4-4-12 hex form that Java's UUID.toString produces.
func ParseUUIDText(s string) ([16]byte, error) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("%q is not a UUID (want the 8-4-4-4-12 hex form)", s)
	}
	if _, err := hex.Decode(u[:], []byte(s[:8]+s[9:13]+s[14:18]+s[19:23]+s[24:])); err != nil {
		return u, fmt.Errorf("%q is not a UUID: %v", s, err)
	}
	return u, nil
}

// UUIDText formats 16 bytes as Java's UUID.toString does (lower-case 8-4-4-4-12).
func UUIDText(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:], u[10:])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

// UUIDFromBytes returns the hdds UUID message of u: mostSigBits = first 8 bytes, leastSigBits =
// last 8, signed big-endian.
func UUIDFromBytes(u [16]byte) *UUID {
	msb, lsb := int64(binary.BigEndian.Uint64(u[:8])), int64(binary.BigEndian.Uint64(u[8:]))
	return &UUID{MostSigBits: &msb, LeastSigBits: &lsb}
}

// Bytes returns the UUID as 16 bytes (zero for nil).
func (x *UUID) Bytes() [16]byte {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], uint64(x.GetMostSigBits()))
	binary.BigEndian.PutUint64(u[8:], uint64(x.GetLeastSigBits()))
	return u
}

// Text returns the UUID in Java's text form.
func (x *UUID) Text() string { return UUIDText(x.Bytes()) }

// DatanodeUUID returns a DataNode's id the way the Java client reads it: id, else uuid128, else the
// uuid string; "" when none is set.
func DatanodeUUID(m *DatanodeDetailsProto) string {
	switch {
	case m.GetId().GetUuid() != nil:
		return m.GetId().GetUuid().Text()
	case m.GetUuid128() != nil:
		return m.GetUuid128().Text()
	}
	return m.GetUuid()
}

// PipelineIDBytes is the identity pipeline ids compare by (Java: PipelineID.equals on the UUID):
// uuid128 when present, else the parsed id text. ok is false when neither gives a UUID.
func PipelineIDBytes(p *PipelineID) (u [16]byte, ok bool) {
	switch {
	case p.GetUuid128() != nil:
		return p.GetUuid128().Bytes(), true
	case p.GetId() != "":
		u, err := ParseUUIDText(p.GetId())
		return u, err == nil
	}
	return u, false
}

// PipelineIDText returns a pipeline id as UUID text ("" when it has none).
func PipelineIDText(p *PipelineID) string {
	if p.GetId() != "" {
		return p.GetId()
	}
	if u, ok := PipelineIDBytes(p); ok {
		return UUIDText(u)
	}
	return ""
}

// NewPipelineID returns the PipelineID of a UUID text with both id and uuid128 set, as SCM sends it.
func NewPipelineID(text string) (*PipelineID, error) {
	u, err := ParseUUIDText(text)
	if err != nil {
		return nil, err
	}
	return &PipelineID{Id: &text, Uuid128: UUIDFromBytes(u)}, nil
}
