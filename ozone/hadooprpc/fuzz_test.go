package hadooprpc

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
)

// FuzzReadResponse feeds arbitrary bytes to the response decoder: it must
// never panic, and a huge declared length must not allocate before the bytes
// arrive (the 128 MiB limit is in force here).
func FuzzReadResponse(f *testing.F) {
	for _, h := range []string{vec.SASLSuccess, vec.FatalNoSimple, vec.ErrorNotLeader, vec.GetContainerOK, vec.EmptyTokenOK,
		"ffffffff", "ffffffffffffffff00000001410000000142", "07ffffff0a", "00000000", "0000000301ff00"} {
		f.Add(vec.Bytes(h), true)
		f.Add(vec.Bytes(h), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, first bool) {
		r := bytes.NewReader(data)
		resp, err := readResponse(r, DefaultMaxDataLength, first)
		if err != nil {
			var re *RemoteError
			if !errors.Is(err, ErrBadResponse) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &re) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if resp.header == nil {
			t.Fatal("nil header without error")
		}
	})
}

// A declared 100 MiB frame backed by 10 bytes must not allocate 100 MiB.
func TestReadResponseHugeLengthDoesNotAllocate(t *testing.T) {
	data := append([]byte{0x06, 0x40, 0, 0}, make([]byte, 10)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readResponse(bytes.NewReader(data), DefaultMaxDataLength, false)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want unexpected EOF", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("decoder allocated %d bytes for a 14-byte input", grew)
	}
}
