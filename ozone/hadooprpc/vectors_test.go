package hadooprpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hadooppb"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// Test vectors from docs/hadoop-rpc.md#test-vectors (client id a0..af, user hadoop).
const (
	vecPreambleSimple = "68727063090000"
	vecPreambleSASL   = "687270630900df"
	vecContext        = `0000006c
1a 0802 1000 1805 2210 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 2801
50 12080a066861646f6f70 1a44 6f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c`
	vecGetContainer       = "000000801a0802100018002210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010c0802120018033a0408011200"
	vecListPipelines      = "0000007e1a0802100018022210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010a08091200180372020a00"
	vecGetContainerToken  = "000000811a0802100018042210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010d081b120018038202040a020801"
	vecPing               = "0000001b1a0802100018072210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2801"
	vecSASLNegotiate      = "0000000e0a08021000184122002801021001"
	vecWrapGetContainer   = "0802120018033a0408011200"
	vecWrapListPipelines  = "08091200180372020a00"
	vecWrapGetContainerTk = "081b120018038202040a020801"

	vecSASLSuccess    = "000000120e08dfffffff0f100018093a004001021000"
	vecFatalNoSimple  = "00000082800108ffffffff0f1002180922316f72672e6170616368652e6861646f6f702e73656375726974792e416363657373436f6e74726f6c457863657074696f6e2a3b53494d504c452061757468656e7469636174696f6e206973206e6f7420656e61626c65642e2020417661696c61626c653a5b4b45524245524f535d300f3a004001"
	vecErrorNotLeader = "000000bdbb0108001001180922356f72672e6170616368652e6861646f6f702e686464732e72617469732e5365727665724e6f744c6561646572457863657074696f6e2a6653434d205365727665723a73636d312873636d312e6578616d706c652e636f6d29206973206e6f7420746865206c65616465722e20537567676573746564206c6561646572206973205365727665723a73636d322e6578616d706c652e636f6d3a393836302e30013a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf4000"
	vecGetContainerOK = "000000801a0800100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400064080228013a5e0a5c080110011a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a01200028003080d095ffbc313a036f6d314000480050015801"
	vecEmptyTokenOK   = "0000002d1a0802100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400011081b280182020a0a080a0012001a002200"
	vecListBody       = "080928017295020a92020abe010a2433663235303465302d346638392d343164332d396130632d303330356538326333333031120931302e302e302e31311a0f646e312e6578616d706c652e636f6d220f0a0a5354414e44414c4f4e4510834d322433663235303465302d346638392d343164332d396130632d3033303565383263333330313a0d2f64656661756c742d7261636b40014800a2061508d383a5fc849cc1923f1081e6b0c1dee080869a01b206170a1508d383a5fc849cc1923f1081e6b0c1dee080869a011002180120012a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a0132004080d095ffbc315000"

	notLeaderClass = "org.apache.hadoop.hdds.ratis.ServerNotLeaderException"
	notLeaderMsg   = "SCM Server:scm1(scm1.example.com) is not the leader. Suggested leader is Server:scm2.example.com:9860."
)

func wrapper(t testing.TB, hexMsg string) *scmpb.ScmContainerLocationRequest {
	t.Helper()
	m := new(scmpb.ScmContainerLocationRequest)
	if err := proto.Unmarshal(unhex(t, hexMsg), m); err != nil {
		t.Fatal(err)
	}
	return m
}

// asyncCall runs one Call in a goroutine and returns its result channel.
func asyncCall(ctx context.Context, c *Client, req, resp proto.Message) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- c.Call(ctx, scmProtocol, "submitRequest", req, resp) }()
	return ch
}

func waitCall(t testing.TB, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("call did not return")
		return nil
	}
}

// The client's session bytes equal docs/hadoop-rpc.md#client-frames, and it decodes the
// docs/hadoop-rpc.md#server-frames replies.
func TestClientFramesMatchSpec(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), Options{})
	ctx := testCtx(t)

	var gc scmpb.ScmContainerLocationResponse
	done := asyncCall(ctx, c, wrapper(t, vecWrapGetContainer), &gc)
	sc := rs.accept(t)
	expectBytes(t, sc, "preamble+context+GetContainer(1)",
		append(append(unhex(t, vecPreambleSimple), unhex(t, vecContext)...), unhex(t, vecGetContainer)...))
	sc.Write(unhex(t, vecGetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	info := gc.GetGetContainerResponse().GetContainerInfo()
	if info.GetContainerID() != 1 || info.GetOwner() != "om1" || info.GetPipelineID().GetId() != "5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b" {
		t.Errorf("decoded GetContainer reply: %v", info)
	}

	var lp scmpb.ScmContainerLocationResponse
	done = asyncCall(ctx, c, wrapper(t, vecWrapListPipelines), &lp)
	expectBytes(t, sc, "ListPipelines", unhex(t, vecListPipelines))
	body := new(scmpb.ScmContainerLocationResponse)
	if err := proto.Unmarshal(unhex(t, vecListBody), body); err != nil {
		t.Fatal(err)
	}
	sc.Write(mustFrame(t, responseHeader(1, 0, testClientID, hadooppb.RpcResponseHeaderProto_SUCCESS), body))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	members := lp.GetListPipelineResponse().GetPipelines()[0].GetMembers()
	if len(members) != 1 || members[0].GetIpAddress() != "10.0.0.11" || members[0].GetPorts()[0].GetValue() != 9859 {
		t.Errorf("decoded ListPipelines reply: %v", members)
	}

	var tk scmpb.ScmContainerLocationResponse
	done = asyncCall(ctx, c, wrapper(t, vecWrapGetContainerTk), &tk)
	expectBytes(t, sc, "GetContainerToken", unhex(t, vecGetContainerToken))
	sc.Write(unhex(t, vecEmptyTokenOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
	if tok := tk.GetContainerTokenResponse().GetToken(); tok == nil || len(tok.GetIdentifier()) != 0 || tok.GetKind() != "" {
		t.Errorf("decoded empty token: %v", tok)
	}
}

func TestClientDecodesNotLeaderError(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), Options{})
	done := asyncCall(testCtx(t), c, wrapper(t, vecWrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", append(append(unhex(t, vecPreambleSimple), unhex(t, vecContext)...), unhex(t, vecGetContainer)...))
	sc.Write(unhex(t, vecErrorNotLeader))
	err := waitCall(t, done)
	var re *RemoteError
	if !errors.As(err, &re) || re.Class != notLeaderClass || re.Message != notLeaderMsg || re.Fatal || re.Detail != ErrorApplication {
		t.Fatalf("err = %#v", err)
	}
	if !IsRemoteClass(err, "ServerNotLeaderException") {
		t.Error("IsRemoteClass does not match the simple name")
	}
}

func TestClientPingFrame(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), Options{PingInterval: 50 * time.Millisecond})
	done := asyncCall(testCtx(t), c, wrapper(t, vecWrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "session", append(append(unhex(t, vecPreambleSimple), unhex(t, vecContext)...), unhex(t, vecGetContainer)...))
	expectBytes(t, sc, "first ping", unhex(t, vecPing))
	expectBytes(t, sc, "second ping", unhex(t, vecPing))
	sc.Write(unhex(t, vecGetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestClientSASLNegotiateFrame(t *testing.T) {
	rs := newRawServer(t)
	c := newTestClient(t, rs.addr(), Options{Authenticator: SimpleFallback{}})
	done := asyncCall(testCtx(t), c, wrapper(t, vecWrapGetContainer), new(scmpb.ScmContainerLocationResponse))
	sc := rs.accept(t)
	expectBytes(t, sc, "SASL preamble+NEGOTIATE", append(unhex(t, vecPreambleSASL), unhex(t, vecSASLNegotiate)...))
	sc.Write(unhex(t, vecSASLSuccess))
	expectBytes(t, sc, "context+call", append(unhex(t, vecContext), unhex(t, vecGetContainer)...))
	sc.Write(unhex(t, vecGetContainerOK))
	if err := waitCall(t, done); err != nil {
		t.Fatal(err)
	}
}

// Server replies equal docs/hadoop-rpc.md#server-frames, given the docs/hadoop-rpc.md#client-frames
// client bytes.
func TestServerFramesMatchSpec(t *testing.T) {
	getContainerOK := new(scmpb.ScmContainerLocationResponse)
	frame := unhex(t, vecGetContainerOK)
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
		opts    ServerOptions
		handler Handler
		send    []string
		want    string
		closes  bool
	}{
		{"SASL SUCCESS from a SIMPLE server", ServerOptions{}, nil,
			[]string{vecPreambleSASL, vecSASLNegotiate}, vecSASLSuccess, false},
		{"FATAL SIMPLE not enabled", ServerOptions{KerberosOnly: true}, nil,
			[]string{vecPreambleSimple}, vecFatalNoSimple, true},
		{"ERROR not leader", ServerOptions{},
			func(context.Context, CallInfo, []byte) (proto.Message, error) {
				return nil, &RemoteError{Class: notLeaderClass, Message: notLeaderMsg}
			},
			[]string{vecPreambleSimple, vecContext, vecGetContainer}, vecErrorNotLeader, false},
		{"SUCCESS GetContainer", ServerOptions{},
			func(context.Context, CallInfo, []byte) (proto.Message, error) { return getContainerOK, nil },
			[]string{vecPreambleSimple, vecContext, vecGetContainer}, vecGetContainerOK, false},
		{"SUCCESS empty token", ServerOptions{},
			func(context.Context, CallInfo, []byte) (proto.Message, error) { return emptyToken, nil },
			[]string{vecPreambleSimple, vecContext, vecGetContainerToken}, vecEmptyTokenOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, tt.opts)
			if tt.handler != nil {
				s.Register(scmProtocol, 1, "submitRequest", tt.handler)
			}
			c := dialRaw(t, startServer(t, s))
			for _, h := range tt.send {
				c.Write(unhex(t, h))
			}
			expectBytes(t, c, "reply", unhex(t, tt.want))
			if tt.closes {
				expectEOF(t, c)
			}
		})
	}
}
