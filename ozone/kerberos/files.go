package kerberos

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileSize bounds the credential files (keytab, ticket cache) and krb5.conf Login reads: a
// keytab of thousands of keys or a cache of thousands of service tickets is well under it, and a
// path that names a device or a huge file fails instead of filling memory.
const MaxFileSize = 4 << 20

// ErrBadFile is wrapped by every *FileError: a file Login needs is missing, unreadable or
// malformed.
var ErrBadFile = errors.New("unusable Kerberos file")

// FileError says which Kerberos file could not be used and why. Its text names the file and the
// problem (an offset, a length), never the file's bytes: a keytab holds keys and a ticket cache a
// session key.
type FileError struct {
	// Kind is "keytab", "ticket cache" or "configuration".
	Kind string
	// Path is the file as given.
	Path string
	// Problem is what is wrong with it.
	Problem string
	// Hint says how to fix it; "" when there is nothing specific to say.
	Hint string
}

func (e *FileError) Error() string {
	s := fmt.Sprintf("kerberos: %s %s: %s", e.Kind, e.Path, e.Problem)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap makes errors.Is(err, ErrBadFile) true.
func (e *FileError) Unwrap() error { return ErrBadFile }

// readFile reads a regular file of at most MaxFileSize bytes. Only the OS's reason is kept from a
// failure (not found, permission denied), without the path it repeats.
func readFile(kind, path, hint string) ([]byte, error) {
	bad := func(problem string) error { return &FileError{Kind: kind, Path: path, Problem: problem, Hint: hint} }
	f, err := os.Open(path)
	if err != nil {
		return nil, bad(osReason(err))
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, bad(osReason(err))
	case st.IsDir():
		return nil, bad("is a directory, not a file")
	case !st.Mode().IsRegular():
		return nil, bad("is not a regular file")
	case st.Size() > MaxFileSize:
		return nil, bad(fmt.Sprintf("is %d bytes, more than the %d a Kerberos file can sensibly be", st.Size(), MaxFileSize))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	switch {
	case err != nil:
		return nil, bad(osReason(err))
	case len(b) > MaxFileSize:
		return nil, bad(fmt.Sprintf("grew past %d bytes while being read", MaxFileSize))
	case len(b) == 0:
		return nil, bad("is empty")
	}
	return b, nil
}

// osReason is the reason of an *fs.PathError ("no such file or directory").
func osReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// fileReader reads the fields of a keytab or ticket cache. Every length and count it reads is
// checked against the bytes left before anything is allocated, so a damaged length fails with
// its offset instead of reading past the end or allocating gigabytes. The first failure sticks;
// later reads return zero values.
type fileReader struct {
	b     []byte
	off   int
	order binary.ByteOrder
	err   string // the first problem, "" while none
}

func (r *fileReader) left() int { return len(r.b) - r.off }

func (r *fileReader) failf(format string, a ...any) {
	if r.err == "" {
		r.err = fmt.Sprintf(format, a...)
	}
}

// take returns the next n bytes of field what, or nil after a failure.
func (r *fileReader) take(n int, what string) []byte {
	if r.err != "" {
		return nil
	}
	if n < 0 || n > r.left() {
		r.failf("truncated or damaged: %s of %d bytes at byte %d, but the file has %d bytes", what, n, r.off, len(r.b))
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

func (r *fileReader) u8(what string) uint8 {
	if v := r.take(1, what); v != nil {
		return v[0]
	}
	return 0
}

func (r *fileReader) u16(what string) uint16 {
	if v := r.take(2, what); v != nil {
		return r.order.Uint16(v)
	}
	return 0
}

func (r *fileReader) u32(what string) uint32 {
	if v := r.take(4, what); v != nil {
		return r.order.Uint32(v)
	}
	return 0
}

// bytes16 and bytes32 read a length (16 or 32 bits) and that many bytes, copied.
func (r *fileReader) bytes16(what string) []byte {
	return clone(r.take(int(r.u16(what+" length")), what))
}

func (r *fileReader) bytes32(what string) []byte {
	n := r.u32(what + " length")
	if uint64(n) > uint64(r.left()) {
		r.failf("truncated or damaged: %s of %d bytes at byte %d, but the file has %d bytes", what, n, r.off, len(r.b))
		return nil
	}
	return clone(r.take(int(n), what))
}

// count reads a 32-bit count of items that take at least minSize bytes each, and fails when the
// bytes left cannot hold that many.
func (r *fileReader) count(what string, minSize int) int {
	n := r.u32(what)
	if uint64(n)*uint64(minSize) > uint64(r.left()) {
		r.failf("truncated or damaged: %d %s at byte %d, but only %d bytes are left", n, what, r.off-4, r.left())
		return 0
	}
	return int(n)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
