package rpcserver_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
	vec "github.com/dnecho/dnecho/testsupport/hadooprpcvectors"
	"github.com/dnecho/dnecho/testsupport/rpcservertest"
)

// Server replies equal docs/hadoop-rpc.md#server-frames, given the docs/hadoop-rpc.md#client-frames
// client bytes.
func TestServerFramesMatchSpec(t *testing.T) {
	getContainerOK := new(scmpb.ScmContainerLocationResponse)
	frame := vec.Bytes(vec.GetContainerOK)
	if err := proto.Unmarshal(frame[len(frame)-100:], getContainerOK); err != nil { // body after its 0x64 length byte
		t.Fatal(err)
	}
	empty := ""
	emptyToken := &scmpb.ScmContainerLocationResponse{
		CmdType: scmpb.Type_GetContainerToken.Enum(),
		Status:  scmpb.ScmContainerLocationResponse_OK.Enum(),
		ContainerTokenResponse: &scmpb.GetContainerTokenResponseProto{Token: &hddspb.TokenProto{
			Identifier: []byte{}, Password: []byte{}, Kind: &empty, Service: &empty}},
	}
	tests := []struct {
		name    string
		opts    rpcserver.Options
		handler rpcserver.Handler
		send    []string
		want    string
		closes  bool
	}{
		{"SASL SUCCESS from a SIMPLE server", rpcserver.Options{}, nil,
			[]string{vec.PreambleSASL, vec.SASLNegotiate}, vec.SASLSuccess, false},
		{"FATAL SIMPLE not enabled", rpcserver.Options{KerberosOnly: true}, nil,
			[]string{vec.PreambleSimple}, vec.FatalNoSimple, true},
		{"ERROR not leader", rpcserver.Options{},
			func(context.Context, rpcserver.CallInfo, []byte) (proto.Message, error) {
				return nil, &hadooprpc.RemoteError{Class: vec.NotLeaderClass, Message: vec.NotLeaderMsg}
			},
			[]string{vec.PreambleSimple, vec.Context, vec.GetContainer}, vec.ErrorNotLeader, false},
		{"SUCCESS GetContainer", rpcserver.Options{},
			func(context.Context, rpcserver.CallInfo, []byte) (proto.Message, error) { return getContainerOK, nil },
			[]string{vec.PreambleSimple, vec.Context, vec.GetContainer}, vec.GetContainerOK, false},
		{"SUCCESS empty token", rpcserver.Options{},
			func(context.Context, rpcserver.CallInfo, []byte) (proto.Message, error) { return emptyToken, nil },
			[]string{vec.PreambleSimple, vec.Context, vec.GetContainerToken}, vec.EmptyTokenOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rpcservertest.NewServer(t, tt.opts)
			if tt.handler != nil {
				s.Register(vec.Protocol, 1, "submitRequest", tt.handler)
			}
			c := dialRaw(t, rpcservertest.Serve(t, s))
			c.Write(vec.Bytes(tt.send...))
			rpcservertest.ExpectBytes(t, c, "reply", vec.Bytes(tt.want))
			if tt.closes {
				rpcservertest.ExpectEOF(t, c)
			}
		})
	}
}
