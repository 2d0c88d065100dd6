package kerberos

import (
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/crypto/etype"
)

// Wrap token layout (RFC 4121 §4.2.6.2): 05 04, flags, ff, EC (2), RRC (2), SND_SEQ (8), then
// the protected data. Integrity-only tokens carry payload ‖ checksum, the checksum taken over
// payload ‖ header with EC and RRC zero, EC holding the checksum length. Sealed tokens carry the
// encryption of payload ‖ EC filler bytes ‖ header (RRC zero inside). Either may be rotated right
// by RRC bytes after the header.
const (
	flagSentByAcceptor = 0x01
	flagSealed         = 0x02
	flagAcceptorSubkey = 0x04
	wrapHeaderLen      = 16
)

// Key usages of wrap tokens (RFC 4121 §2): KG-USAGE-ACCEPTOR-SEAL and KG-USAGE-INITIATOR-SEAL.
const (
	usageAcceptorSeal  = 22
	usageInitiatorSeal = 24
)

// ErrBadWrapToken marks a wrap token that does not decode or whose protection does not verify.
var ErrBadWrapToken = errors.New("bad GSS-API wrap token")

// wrapHeader is the part of a wrap token header that varies.
type wrapHeader struct {
	flags byte
	ec    uint16
	rrc   uint16
	seq   uint64
}

func (h wrapHeader) appendTo(dst []byte) []byte {
	dst = append(dst, 0x05, 0x04, h.flags, 0xff)
	dst = binary.BigEndian.AppendUint16(dst, h.ec)
	dst = binary.BigEndian.AppendUint16(dst, h.rrc)
	return binary.BigEndian.AppendUint64(dst, h.seq)
}

// sealToken builds a sealed (confidential) token with EC = RRC = 0, as the JDK writes them.
func sealToken(et etype.EType, key []byte, usage uint32, flags byte, seq uint64, payload []byte) ([]byte, error) {
	h := wrapHeader{flags: flags | flagSealed, seq: seq}
	pt := make([]byte, 0, len(payload)+wrapHeaderLen)
	pt = h.appendTo(append(pt, payload...))
	_, ct, err := et.EncryptMessage(key, pt, usage)
	if err != nil {
		return nil, fmt.Errorf("kerberos: seal: %w", err)
	}
	return append(h.appendTo(make([]byte, 0, wrapHeaderLen+len(ct))), ct...), nil
}

// integrityToken builds an integrity-only token: payload in clear, checksum after it.
func integrityToken(et etype.EType, key []byte, usage uint32, flags byte, seq uint64, payload []byte) ([]byte, error) {
	h := wrapHeader{flags: flags &^ flagSealed, seq: seq}
	sum, err := checksum(et, key, usage, h, payload)
	if err != nil {
		return nil, err
	}
	h.ec = uint16(len(sum))
	out := h.appendTo(make([]byte, 0, wrapHeaderLen+len(payload)+len(sum)))
	return append(append(out, payload...), sum...), nil
}

// checksum is the integrity checksum over payload ‖ header with EC and RRC zero.
func checksum(et etype.EType, key []byte, usage uint32, h wrapHeader, payload []byte) ([]byte, error) {
	h.ec, h.rrc = 0, 0
	buf := h.appendTo(append(make([]byte, 0, len(payload)+wrapHeaderLen), payload...))
	sum, err := et.GetChecksumHash(key, buf, usage)
	if err != nil {
		return nil, fmt.Errorf("kerberos: wrap checksum: %w", err)
	}
	return sum, nil
}

// parseWrapHeader reads the 16-byte header.
func parseWrapHeader(b []byte) (wrapHeader, error) {
	if len(b) < wrapHeaderLen {
		return wrapHeader{}, fmt.Errorf("%w: %d bytes, shorter than the 16-byte header", ErrBadWrapToken, len(b))
	}
	if b[0] != 0x05 || b[1] != 0x04 {
		return wrapHeader{}, fmt.Errorf("%w: token id %02x%02x, want 0504", ErrBadWrapToken, b[0], b[1])
	}
	if b[3] != 0xff {
		return wrapHeader{}, fmt.Errorf("%w: filler byte %02x, want ff", ErrBadWrapToken, b[3])
	}
	return wrapHeader{
		flags: b[2],
		ec:    binary.BigEndian.Uint16(b[4:6]),
		rrc:   binary.BigEndian.Uint16(b[6:8]),
		seq:   binary.BigEndian.Uint64(b[8:16]),
	}, nil
}

// openToken checks a wrap token with key and usage and returns its header and payload. It
// undoes any rotation (RRC) and honours any filler (EC).
func openToken(et etype.EType, key []byte, usage uint32, b []byte) (wrapHeader, []byte, error) {
	h, err := parseWrapHeader(b)
	if err != nil {
		return h, nil, err
	}
	data := rotateLeft(b[wrapHeaderLen:], int(h.rrc))
	if h.flags&flagSealed == 0 {
		return h, data[:max(0, len(data)-int(h.ec))], verifyIntegrity(et, key, usage, h, data)
	}
	overhead := et.GetConfounderByteSize() + et.GetHMACBitLength()/8
	if len(data) < overhead {
		return h, nil, fmt.Errorf("%w: sealed data of %d bytes, shorter than the %d-byte confounder and checksum", ErrBadWrapToken, len(data), overhead)
	}
	pt, err := et.DecryptMessage(key, data, usage)
	if err != nil {
		return h, nil, fmt.Errorf("%w: %v", ErrBadWrapToken, err)
	}
	if len(pt) < int(h.ec)+wrapHeaderLen {
		return h, nil, fmt.Errorf("%w: sealed plaintext of %d bytes cannot hold %d filler bytes and the header", ErrBadWrapToken, len(pt), h.ec)
	}
	inner, err := parseWrapHeader(pt[len(pt)-wrapHeaderLen:])
	if err != nil || inner.flags != h.flags || inner.ec != h.ec || inner.seq != h.seq {
		return h, nil, fmt.Errorf("%w: the encrypted header copy differs from the header", ErrBadWrapToken)
	}
	return h, pt[:len(pt)-wrapHeaderLen-int(h.ec)], nil
}

func verifyIntegrity(et etype.EType, key []byte, usage uint32, h wrapHeader, data []byte) error {
	if int(h.ec) > len(data) {
		return fmt.Errorf("%w: checksum length %d, only %d bytes", ErrBadWrapToken, h.ec, len(data))
	}
	payload, got := data[:len(data)-int(h.ec)], data[len(data)-int(h.ec):]
	want, err := checksum(et, key, usage, h, payload)
	if err != nil {
		return err
	}
	if !hmac.Equal(want, got) {
		return fmt.Errorf("%w: checksum does not verify", ErrBadWrapToken)
	}
	return nil
}

// rotateLeft undoes a right rotation by n (RFC 4121 §4.2.5) into a new slice.
func rotateLeft(b []byte, n int) []byte {
	if len(b) == 0 || n%len(b) == 0 {
		return b
	}
	n %= len(b)
	out := make([]byte, 0, len(b))
	return append(append(out, b[n:]...), b[:n]...)
}
