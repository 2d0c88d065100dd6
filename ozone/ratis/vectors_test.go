package ratis

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
	rv "github.com/dnecho/dnecho/testsupport/ratisvectors"
)

// vecMember is DNn of the vectors: 10.0.0.n with Ozone's default Ratis ports.
func vecMember(t *testing.T, uuid, ip string) *hddspb.DatanodeDetailsProto {
	t.Helper()
	u, err := hddspb.ParseUUIDText(uuid)
	if err != nil {
		t.Fatal(err)
	}
	port := func(name string, v uint32) *hddspb.Port {
		return &hddspb.Port{Name: proto.String(name), Value: proto.Uint32(v)}
	}
	return &hddspb.DatanodeDetailsProto{Uuid: proto.String(uuid), IpAddress: proto.String(ip), HostName: proto.String("dn"),
		Id:    &hddspb.DatanodeIDProto{Uuid: hddspb.UUIDFromBytes(u)},
		Ports: []*hddspb.Port{port("STANDALONE", 9859), port(ratispb.PortRatis, rv.ClientPort), port(ratispb.PortRatisAdmin, rv.AdminPort), port(ratispb.PortRatisServer, rv.ServerPort)}}
}

// vecClient is a client with the vectors' ids: pipeline DN1, DN2 (leader), DN3.
func vecClient(t *testing.T) *Client {
	t.Helper()
	id, err := hddspb.NewPipelineID(rv.PipelineID)
	if err != nil {
		t.Fatal(err)
	}
	p := &hddspb.Pipeline{Id: id, LeaderID: proto.String(rv.DN2), Members: []*hddspb.DatanodeDetailsProto{
		vecMember(t, rv.DN1, "10.0.0.1"), vecMember(t, rv.DN2, "10.0.0.2"), vecMember(t, rv.DN3, "10.0.0.3")}}
	cid, _ := hddspb.ParseUUIDText(rv.ClientID)
	c, err := New(p, Options{ClientID: cid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sent is what a stream to the leader queued for these calls, in order.
func sent(c *Client, calls ...*call) [][]byte {
	st := &stream{c: c, peer: c.peers[c.leader], inflight: map[uint64]*call{}, notify: make(chan struct{}, 1)}
	for _, k := range calls {
		st.sendLocked(k)
	}
	var out [][]byte
	for _, q := range st.queue {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(q)
		out = append(out, b)
	}
	return out
}

// TestRequestVectors: the client's requests byte for byte: the Echo header in both modes, the
// initial watch, a write, the next write with repliedCallIds, and a read.
func TestRequestVectors(t *testing.T) {
	c := vecClient(t)
	pw, err := c.Prepare(datanode.Request{ContainerID: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c.Prepare(datanode.Request{ContainerID: 1, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := append([]byte{0, 0, 0, 0x3a}, rv.Bytes(rv.EchoWrite)...); !bytes.Equal(pw.msg.Content, want) || pw.typ != typeWrite {
		t.Errorf("write content %x", pw.msg.Content)
	}
	if want := append([]byte{0, 0, 0, 0x3a}, rv.Bytes(rv.EchoRead)...); !bytes.Equal(pr.msg.Content, want) || pr.typ != typeRead {
		t.Errorf("read content %x", pr.msg.Content)
	}
	got := sent(c, &call{id: 1, seq: 1, typ: typeWatch}, &call{id: 2, seq: 2, typ: typeWrite, msg: pw.msg},
		&call{id: 3, seq: 3, typ: typeWrite, msg: pw.msg, replied: []uint64{2}})
	for i, want := range []string{rv.R1Watch, rv.R2Write, rv.R3NextWrite} {
		if !bytes.Equal(got[i], rv.Bytes(want)) {
			t.Errorf("request %d\n got %x\nwant %s", i+1, got[i], want)
		}
	}
	if got := sent(c, &call{id: 1, seq: 1, typ: typeWatch}, &call{id: 2, seq: 2, typ: typeRead, msg: pr.msg}); !bytes.Equal(got[1], rv.Bytes(rv.R4Read)) {
		t.Errorf("R4\n got %x\nwant %s", got[1], rv.R4Read)
	}
}

// TestPeerOf: a member as the peer Ozone's client builds (vector PEER-DN1; the server side adds
// priority 1 for the leader it was created with, PEER-DN2).
func TestPeerOf(t *testing.T) {
	for _, tt := range []struct {
		uuid, ip string
		prio     uint32
		want     string
	}{{rv.DN1, "10.0.0.1", 0, rv.PeerDN1}, {rv.DN2, "10.0.0.2", 1, rv.PeerDN2}, {rv.DN3, "10.0.0.3", 0, rv.PeerDN3}} {
		p, err := ratispb.PeerOf(vecMember(t, tt.uuid, tt.ip), false, tt.prio)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := proto.Marshal(p)
		if !bytes.Equal(b, rv.Bytes(tt.want)) {
			t.Errorf("%s\n got %x\nwant %s", tt.uuid, b, tt.want)
		}
	}
	m := vecMember(t, rv.DN1, "10.0.0.1")
	m.Ports = m.Ports[:2] // STANDALONE and RATIS only: the other addresses fall back to RATIS
	p, err := ratispb.PeerOf(m, true, 0)
	if err != nil || p.Address != "dn:9858" || p.AdminAddress != "dn:9858" || p.ClientAddress != "dn:9858" {
		t.Errorf("fallbacks and hostname: %v %v", p, err)
	}
	m.Ports = m.Ports[:1]
	var mp *MissingPortError
	if _, err := peerOf(m, false); !errors.As(err, &mp) {
		t.Errorf("no RATIS port: %v", err)
	}
}

func TestUnwrapEcho(t *testing.T) {
	for _, tt := range []struct {
		in   []byte
		want []byte
		ok   bool
	}{
		{ratispb.WrapEcho([]byte{1, 2, 3}), []byte{1, 2, 3}, true},
		{append(ratispb.WrapEcho([]byte{1}), 9, 9), []byte{1}, true}, // data after the header is ignored
		{[]byte{0, 0, 0}, nil, false},
		{[]byte{0, 0, 0, 5, 1}, nil, false},
		{[]byte{0xff, 0xff, 0xff, 0xff}, nil, false},
	} {
		got, err := ratispb.UnwrapEcho(tt.in)
		if (err == nil) != tt.ok || !bytes.Equal(got, tt.want) {
			t.Errorf("ratispb.UnwrapEcho(%x) = %x, %v", tt.in, got, err)
		}
	}
	if ratispb.LogID("group-", rv.Bytes("6b8d0f3e2a1c4e5f9a7b1c2d3e4f5a6b")) != "group-1C2D3E4F5A6B" {
		t.Error("ratispb.LogID")
	}
}

// FuzzJudge feeds the reply decoder arbitrary bytes as a reply: it must not panic, and a reply
// that decodes either fails the stream, ends the call with an error, or carries a response.
func FuzzJudge(f *testing.F) {
	for _, v := range []string{rv.P1WatchReply, rv.P2WriteReply, rv.P3ReadReply, rv.P2CWriteReplyCommitInfos,
		rv.P5ReadNotFound, rv.NLNotLeader, rv.LNRLeaderNotReady, rv.SMEClosedContainer, rv.SMESTClosedContainerStackTrace, rv.AFApplyFailure} {
		f.Add(rv.Bytes(v))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r ratispb.RaftClientReplyProto
		if proto.Unmarshal(b, &r) != nil {
			return
		}
		for _, watch := range []bool{false, true} {
			v := judge(&r, watch)
			if n := btoi(v.resend) + btoi(v.err != nil) + btoi(v.resp != nil); n > 1 || (n == 0 && !watch) {
				t.Fatalf("verdict %+v for %v", v, &r)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
