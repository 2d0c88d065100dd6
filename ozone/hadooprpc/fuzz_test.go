package hadooprpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hadooppb"
)

// FuzzReadResponse feeds arbitrary bytes to the response decoder: it must
// never panic, and a huge declared length must not allocate before the bytes
// arrive (the 128 MiB limit is in force here).
func FuzzReadResponse(f *testing.F) {
	for _, h := range []string{vecSASLSuccess, vecFatalNoSimple, vecErrorNotLeader, vecGetContainerOK, vecEmptyTokenOK,
		"ffffffff", "ffffffffffffffff00000001410000000142", "07ffffff0a", "00000000", "0000000301ff00"} {
		f.Add(unhex(f, h), true)
		f.Add(unhex(f, h), false)
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

// FuzzServerConn feeds arbitrary client bytes to the server side (preamble, frame lengths, request
// headers, connection context, SASL and call payloads): it must never panic, must end the
// connection when the client goes away, and must not wait on anything the client did not send.
func FuzzServerConn(f *testing.F) {
	session := vecPreambleSimple + strings.ReplaceAll(strings.ReplaceAll(vecContext, "\n", ""), " ", "") + vecGetContainer
	for _, h := range []string{session, vecPreambleSimple + vecPing, vecPreambleSASL + vecSASLNegotiate,
		"474554202f20485454502f312e310d0a", "6872706308000000", "68727063090042", vecPreambleSimple + "7fffffff", vecPreambleSimple + "0000000100"} {
		f.Add(unhex(f, h))
	}
	srv, err := NewServer(ServerOptions{})
	if err != nil {
		f.Fatal(err)
	}
	srv.Register("org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol", 1, "submitRequest",
		func(ctx context.Context, call CallInfo, req []byte) (proto.Message, error) {
			var h hadooppb.RequestHeaderProto
			if err := UnmarshalRequest(req, &h); err != nil {
				return nil, err
			}
			return &h, nil
		})
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		sc := newServerConn(srv, server)
		served := make(chan struct{})
		go func() { sc.serve(); close(served) }()
		drained := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, client); close(drained) }()
		_, _ = client.Write(data) // fails once the server has hung up, which is fine
		client.Close()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Fatal("the server connection did not end after the client closed")
		}
		<-drained
	})
}
