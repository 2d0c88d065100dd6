package rpcserver

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hadooppb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
)

// FuzzServerConn feeds arbitrary client bytes to the server side (preamble, frame lengths, request
// headers, connection context, SASL and call payloads): it must never panic, must end the
// connection when the client goes away, and must not wait on anything the client did not send.
func FuzzServerConn(f *testing.F) {
	for _, v := range [][]string{
		{vec.PreambleSimple, vec.Context, vec.GetContainer}, {vec.PreambleSimple, vec.Ping}, {vec.PreambleSASL, vec.SASLNegotiate},
		{"474554202f20485454502f312e310d0a"}, {"6872706308000000"}, {"68727063090042"}, {vec.PreambleSimple, "7fffffff"}, {vec.PreambleSimple, "0000000100"},
	} {
		f.Add(vec.Bytes(v...))
	}
	srv, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	srv.Register(vec.Protocol, 1, "submitRequest",
		func(ctx context.Context, call CallInfo, req []byte) (proto.Message, error) {
			var h hadooppb.RequestHeaderProto
			if err := UnmarshalRequest(req, &h); err != nil {
				return nil, err
			}
			return &h, nil
		})
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		sc := newConn(srv, server)
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
