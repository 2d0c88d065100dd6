package raftsim_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratisgrpcpb"
	"github.com/dnecho/dnecho/proto/ratispb"
	"github.com/dnecho/dnecho/testsupport/raftsimtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDeadline bounds every wait of these tests.
const testDeadline = raftsimtest.Deadline

// pipeline is an emulated pipeline and the test's shorthands for it.
type pipeline struct {
	dns []*dnsim.DataNode
	g   *raftsim.Group
	id  string
}

// startPipeline starts an emulated pipeline (see raftsimtest.Start).
func startPipeline(t *testing.T, opts raftsim.GroupOptions, dnOpts ...dnsim.Options) *pipeline {
	t.Helper()
	p := raftsimtest.Start(t, opts, dnOpts...)
	return &pipeline{dns: p.DataNodes, g: p.Group, id: p.ID}
}

func dns(n int) []dnsim.Options { return raftsimtest.DataNodes(n) }

// raw is an ordered stream driven by hand, to break the rules a real client keeps.
type raw struct {
	t      *testing.T
	cs     grpc.BidiStreamingClient[ratispb.RaftClientRequestProto, ratispb.RaftClientReplyProto]
	client [16]byte
	group  []byte
	to     string
	cancel context.CancelFunc // resets the stream (RST_STREAM), as dnecho once ended its streams
}

// open opens an ordered stream to DataNode i of p as a new client.
func (p *pipeline) open(t *testing.T, i int) *raw {
	return p.openAs(t, i, hddspb.NewRandomUUID())
}

// openAs opens an ordered stream to DataNode i with the given client id.
func (p *pipeline) openAs(t *testing.T, i int, client [16]byte) *raw {
	t.Helper()
	d := p.dns[i]
	cc, err := grpc.NewClient("passthrough:///127.0.0.1:"+strconv.Itoa(d.RatisPort()), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	cs, err := ratisgrpcpb.NewRaftClientProtocolServiceClient(cc).Ordered(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gid, _ := hddspb.ParseUUIDText(p.id)
	return &raw{t: t, cs: cs, client: client, group: gid[:], to: d.UUID(), cancel: cancel}
}

// kind of request a raw stream sends.
type kind int

const (
	read kind = iota
	write
	watch
)

// echo is the content of an Echo for container with a sleep.
func echo(container int64, sleepMs int32, readOnly bool) []byte {
	h := datanode.NewEchoRequest(datanode.Request{ContainerID: container, SleepTimeMs: sleepMs, ReadOnly: readOnly}, "dn")
	b, err := proto.Marshal(h)
	if err != nil {
		panic(err)
	}
	return ratispb.WrapEcho(b)
}

// request builds a request; content nil means an Echo of container 1 without sleep.
func (r *raw) request(call, seq uint64, first bool, k kind, content []byte) *ratispb.RaftClientRequestProto {
	req := &ratispb.RaftClientRequestProto{RpcRequest: &ratispb.RaftRpcRequestProto{
		RequestorId: r.client[:], ReplyId: []byte(r.to), RaftGroupId: &ratispb.RaftGroupIdProto{Id: r.group},
		CallId: call, ToLeader: true, SlidingWindowEntry: &ratispb.SlidingWindowEntry{SeqNum: seq, IsFirst: first}}}
	switch k {
	case watch:
		req.Type = &ratispb.RaftClientRequestProto_Watch{Watch: &ratispb.WatchRequestTypeProto{}}
		return req
	case read:
		req.Type = &ratispb.RaftClientRequestProto_Read{Read: &ratispb.ReadRequestTypeProto{}}
	default:
		req.Type = &ratispb.RaftClientRequestProto_Write{Write: &ratispb.WriteRequestTypeProto{}}
	}
	if content == nil {
		content = echo(1, 0, k == read)
	}
	req.Message = &ratispb.ClientMessageEntryProto{Content: content}
	return req
}

func (r *raw) send(req *ratispb.RaftClientRequestProto) {
	r.t.Helper()
	if err := r.cs.Send(req); err != nil && !errors.Is(err, io.EOF) {
		r.t.Fatalf("send: %v", err)
	}
}

// recv returns the next reply; it fails the test on anything else.
func (r *raw) recv() *ratispb.RaftClientReplyProto {
	r.t.Helper()
	rep, err := r.cs.Recv()
	if err != nil {
		r.t.Fatalf("recv: %v", err)
	}
	return rep
}

// end half-closes the stream and expects it to end with status OK after the given replies.
func (r *raw) end() []*ratispb.RaftClientReplyProto {
	r.t.Helper()
	if err := r.cs.CloseSend(); err != nil {
		r.t.Fatal(err)
	}
	var out []*ratispb.RaftClientReplyProto
	for {
		rep, err := r.cs.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			r.t.Fatalf("stream ended with %v", err)
		}
		out = append(out, rep)
	}
}

// streamError waits for the stream's error status and returns its exception-type trailer.
func (r *raw) streamError() (codes.Code, string) {
	r.t.Helper()
	for {
		_, err := r.cs.Recv()
		if err == nil {
			continue
		}
		var md metadata.MD = r.cs.Trailer()
		class := ""
		if v := md.Get(ratispb.TrailerExceptionType); len(v) > 0 {
			class = v[0]
		}
		return status.Code(err), class
	}
}
