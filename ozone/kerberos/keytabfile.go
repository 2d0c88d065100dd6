package kerberos

import (
	"encoding/binary"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/keytab"
)

// The keytab file format: MIT krb5 doc/formats/keytab_file_format.rst. A keytab is 0x05, a
// version byte (1: the host's byte order, 2: big-endian), then records: a signed 32-bit size, and
// that many bytes of entry (a negative size is a hole of that many bytes left by a deleted entry;
// zero, or fewer than four bytes left, ends the file).

// Bounds of a keytab entry: the longest keys of any encryption type are 32 bytes, and principals
// have a few short components.
const (
	maxKeyBytes   = 64
	maxComponents = 32
	maxNameBytes  = 1024
)

const keytabHint = "make a new one with ktutil or kadmin's ktadd"

// ktEntry is one key of a keytab.
type ktEntry struct {
	realm      []byte
	components [][]byte
	nameType   uint32
	timestamp  uint32
	vno8       uint8
	enctype    uint16
	key        []byte
	vno        uint32
}

// LoadKeytab reads and checks a keytab file; what is wrong with a bad one is a *FileError.
// gokrb5's own parser is handed only bytes this one wrote: it panics on some damaged files and
// prints the file, keys included, in its errors.
func LoadKeytab(path string) (*keytab.Keytab, error) {
	b, err := readFile("keytab", path, keytabHint)
	if err != nil {
		return nil, err
	}
	entries, problem := parseKeytab(b)
	if problem != "" {
		return nil, &FileError{Kind: "keytab", Path: path, Problem: problem, Hint: keytabHint}
	}
	kt := keytab.New()
	if err := kt.Unmarshal(encodeKeytab(entries)); err != nil {
		// Not expected after parseKeytab; gokrb5's text is not shown as it quotes the bytes.
		return nil, &FileError{Kind: "keytab", Path: path, Problem: "cannot be read", Hint: keytabHint}
	}
	return kt, nil
}

// parseKeytab returns the keys of a keytab file, or what is wrong with it.
func parseKeytab(b []byte) ([]ktEntry, string) {
	if len(b) < 2 || b[0] != 5 || (b[1] != 1 && b[1] != 2) {
		return nil, "not a keytab (it does not start with 0x0501 or 0x0502)"
	}
	r := &fileReader{b: b, off: 2, order: binary.BigEndian}
	if b[1] == 1 {
		r.order = binary.NativeEndian
	}
	var entries []ktEntry
	for r.left() >= 4 && r.err == "" {
		start := r.off
		size := int32(r.u32("record size"))
		switch {
		case size == 0:
			r.off = len(r.b)
		case size < 0:
			r.take(int(-int64(size)), fmt.Sprintf("hole at byte %d", start))
		default:
			rec := r.take(int(size), fmt.Sprintf("entry %d", len(entries)+1))
			if rec == nil {
				break
			}
			e, problem := parseKeytabEntry(&fileReader{b: r.b[:r.off], off: r.off - len(rec), order: r.order}, b[1])
			if problem != "" {
				return nil, fmt.Sprintf("entry %d (at byte %d): %s", len(entries)+1, start, problem)
			}
			entries = append(entries, e)
		}
	}
	if r.err != "" {
		return nil, r.err
	}
	if len(entries) == 0 {
		return nil, "holds no keys"
	}
	return entries, ""
}

// parseKeytabEntry reads one entry from r, which ends where the record does.
func parseKeytabEntry(r *fileReader, version byte) (ktEntry, string) {
	var e ktEntry
	n := int(r.u16("component count"))
	if version == 1 {
		n-- // version 1 counts the realm
	}
	if n < 1 || n > maxComponents || 2*n > r.left() {
		return e, fmt.Sprintf("a principal of %d components (1 to %d that fit the entry)", n, maxComponents)
	}
	e.realm = r.bytes16("realm")
	for i := 0; i < n; i++ {
		e.components = append(e.components, r.bytes16("principal component"))
	}
	if version != 1 {
		e.nameType = r.u32("name type")
	}
	e.timestamp = r.u32("timestamp")
	e.vno8 = r.u8("key version")
	e.enctype = r.u16("encryption type")
	e.key = r.bytes16("key")
	if r.err == "" && r.left() >= 4 {
		e.vno = r.u32("key version")
	}
	switch {
	case r.err != "":
		return e, r.err
	case len(e.realm) == 0:
		return e, "the principal has no realm"
	case longName(e.realm, e.components):
		return e, fmt.Sprintf("a principal name part longer than %d bytes", maxNameBytes)
	case len(e.key) == 0 || len(e.key) > maxKeyBytes:
		return e, fmt.Sprintf("a key of %d bytes (keys are 1 to %d bytes)", len(e.key), maxKeyBytes)
	}
	if e.vno == 0 {
		e.vno = uint32(e.vno8)
	}
	return e, ""
}

func longName(realm []byte, components [][]byte) bool {
	if len(realm) > maxNameBytes {
		return true
	}
	for _, c := range components {
		if len(c) > maxNameBytes {
			return true
		}
	}
	return false
}

// encodeKeytab writes entries as a version 2 keytab.
func encodeKeytab(entries []ktEntry) []byte {
	out := []byte{5, 2}
	be := binary.BigEndian
	for _, e := range entries {
		var rec []byte
		rec = be.AppendUint16(rec, uint16(len(e.components)))
		rec = appendCounted16(rec, e.realm)
		for _, c := range e.components {
			rec = appendCounted16(rec, c)
		}
		rec = be.AppendUint32(rec, e.nameType)
		rec = be.AppendUint32(rec, e.timestamp)
		rec = append(rec, e.vno8)
		rec = be.AppendUint16(rec, e.enctype)
		rec = appendCounted16(rec, e.key)
		rec = be.AppendUint32(rec, e.vno)
		out = be.AppendUint32(out, uint32(len(rec)))
		out = append(out, rec...)
	}
	return out
}

func appendCounted16(b, v []byte) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(v))), v...)
}
