package ratis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/ratisgrpcpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

var orderedDesc = &ratisgrpcpb.RaftClientProtocolService_ServiceDesc.Streams[0]

// Request types are messages without fields: their presence is the whole signal.
var (
	typeOfRead  = &ratispb.RaftClientRequestProto_Read{Read: &ratispb.ReadRequestTypeProto{}}
	typeOfWrite = &ratispb.RaftClientRequestProto_Write{Write: &ratispb.WriteRequestTypeProto{}}
	typeOfWatch = &ratispb.RaftClientRequestProto_Watch{Watch: &ratispb.WatchRequestTypeProto{}}
)

// stream is one ordered stream to one peer. Its first request is the oldest unanswered call,
// flagged first; every later request waits until the first has its reply, then goes out at
// once (Ratis: SlidingWindow.Client). Each call keeps the sequence number it got when it was
// submitted. Fields are guarded by the client's mu.
type stream struct {
	c        *Client
	peer     *peer
	ctx      context.Context
	kill     context.CancelFunc
	last     uint64 // sequence number of the last request sent; 0 before the first
	first    uint64 // call id of the first request
	opened   bool   // the first request has its reply
	held     []*call
	inflight map[uint64]*call
	queue    []*ratispb.RaftClientRequestProto // to send, in order
	notify   chan struct{}                     // capacity 1
	ending   chan struct{}                     // closed by endLocked
	grace    *time.Timer                       // cancels the stream CloseTimeout after endLocked
	dead     bool
}

// openLocked starts a stream to the leader and resends the window on it, oldest first.
func (c *Client) openLocked() {
	p := c.peers[c.leader]
	if p.conn == nil {
		conn, err := grpc.NewClient("passthrough:///"+p.node.Addr, c.dialOptions(p.node)...)
		if err != nil { // only for a malformed address
			for len(c.window) > 0 {
				c.finishLocked(c.window[0], outcome{err: fmt.Errorf("ratis: datanode %s (%s): %w", p.node.UUID, p.node.Addr, err), node: p.node})
			}
			return
		}
		p.conn = conn
	}
	st := &stream{c: c, peer: p, inflight: map[uint64]*call{}, notify: make(chan struct{}, 1), ending: make(chan struct{})}
	st.ctx, st.kill = context.WithCancel(c.ctx)
	c.st = st
	for _, k := range c.window {
		st.submitLocked(k)
	}
	c.wg.Add(1)
	go st.run()
}

func (c *Client) dialOptions(node datanode.DataNode) []grpc.DialOption {
	d := []grpc.DialOption{
		grpc.WithTransportCredentials(c.creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(c.opts.MaxMessageSize)),
		grpc.WithInitialWindowSize(FlowControlWindow),
		grpc.WithInitialConnWindowSize(FlowControlWindow),
		grpc.WithNoProxy(), // as the Java client
	}
	if c.opts.Conns != nil {
		d = append(d, grpc.WithContextDialer(datanode.Dialer(node, c.opts.Conns)))
	}
	return d
}

// submitLocked sends k now, or holds it until the first request has its reply.
func (st *stream) submitLocked(k *call) {
	if st.last > 0 && !st.opened {
		st.held = append(st.held, k)
		return
	}
	st.sendLocked(k)
}

// sendLocked queues k's request for the sender, flagged first when it opens the stream.
func (st *stream) sendLocked(k *call) {
	switch {
	case st.last == 0:
		st.first = k.id
	case k.seq > st.last+1: // calls abandoned in between: the server would wait for them forever
		st.c.renumberLocked(k, st.last+1)
	}
	st.last = k.seq
	req := &ratispb.RaftClientRequestProto{
		RpcRequest: &ratispb.RaftRpcRequestProto{
			RequestorId: st.c.id[:], ReplyId: st.peer.id, RaftGroupId: st.c.group, CallId: k.id, ToLeader: true,
			RepliedCallIds:     k.replied,
			SlidingWindowEntry: &ratispb.SlidingWindowEntry{SeqNum: k.seq, IsFirst: k.id == st.first},
		},
		Message: k.msg,
	}
	switch k.typ {
	case typeRead:
		req.Type = typeOfRead
	case typeWrite:
		req.Type = typeOfWrite
	default:
		req.Type = typeOfWatch
	}
	k.attempts++
	k.sent += proto.Size(req)
	st.inflight[k.id] = k
	st.queue = append(st.queue, req)
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// run opens the stream, sends queued requests in order until the stream is given up or
// breaks, then waits for its end: the server's status, or the grace endLocked gives.
func (st *stream) run() {
	c := st.c
	defer c.wg.Done()
	defer st.finish()
	cs, err := st.peer.conn.NewStream(st.ctx, orderedDesc, OrderedMethod)
	if err != nil {
		c.streamFailed(st, err, nil)
		return
	}
	received := make(chan struct{})
	c.wg.Add(1)
	go st.receive(cs, received)
	st.send(cs)
	select {
	case <-received:
	case <-st.ctx.Done():
	}
}

// send sends queued requests in order; once the stream is given up it half-closes it.
func (st *stream) send(cs grpc.ClientStream) {
	c := st.c
	for {
		select {
		case <-st.notify:
		case <-st.ending:
			_ = cs.CloseSend()
			return
		case <-st.ctx.Done():
			return
		}
		c.mu.Lock()
		q := st.queue
		st.queue = nil
		if st.dead {
			q = nil
		}
		c.mu.Unlock()
		for _, req := range q {
			if err := cs.SendMsg(req); err != nil {
				return // the receiver reports why the stream ended
			}
		}
	}
}

// endLocked gives the stream up as the Java client does (Ratis: ratis-grpc/src/main/java/org/
// apache/ratis/grpc/client/GrpcClientProtocolClient.java, close): nothing more is sent, it is
// half-closed, replies still coming are dropped, and the server has CloseTimeout to answer what
// it took and end the stream with OK before the stream is cancelled. A stream cancelled at once
// makes a real DataNode log a WARN ("CANCELLED: client cancelled").
func (st *stream) endLocked() {
	if st.dead {
		return
	}
	st.dead = true
	if st.c.st == st {
		st.c.st = nil
	}
	st.grace = time.AfterFunc(st.c.opts.CloseTimeout, st.kill)
	close(st.ending)
}

// finish releases the stream once run is done with it.
func (st *stream) finish() {
	st.c.mu.Lock()
	if st.grace != nil {
		st.grace.Stop()
	}
	st.c.mu.Unlock()
	st.kill()
}

// receive hands every reply to the client until the stream ends.
func (st *stream) receive(cs grpc.ClientStream, done chan<- struct{}) {
	defer st.c.wg.Done()
	defer close(done)
	for {
		r := new(ratispb.RaftClientReplyProto)
		if err := cs.RecvMsg(r); err != nil {
			st.c.streamFailed(st, err, cs.Trailer())
			return
		}
		st.c.onReply(st, r, time.Now())
	}
}

// onReply matches a reply to its call by call id (a reply to a call that is gone is dropped).
func (c *Client) onReply(st *stream, r *ratispb.RaftClientReplyProto, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.dead {
		return
	}
	id := r.GetRpcReply().GetCallId()
	if id == st.first && !st.opened {
		st.opened = true
		held := st.held
		st.held = nil
		for _, k := range held {
			if !k.finished {
				st.sendLocked(k)
			}
		}
	}
	k := st.inflight[id]
	if k == nil {
		return
	}
	v := judge(r, k.typ == typeWatch)
	node := st.peer.node
	if v.resend {
		c.resetLocked(st, v.retry, c.replyError(st, r), v.suggested, v.peers)
		return
	}
	o := outcome{resp: v.resp, node: node, at: at, received: proto.Size(r)}
	if v.err != nil {
		v.err.DataNode = node
		o.err = v.err
	} else if k.typ == typeWrite {
		c.replied = append(c.replied, id)
	}
	c.finishLocked(k, o)
}

// replyError is the error a call ends with when the policy gives up after this reply.
func (c *Client) replyError(st *stream, r *ratispb.RaftClientReplyProto) error {
	class := ratispb.ClassNotLeader
	switch r.GetExceptionDetails().(type) {
	case *ratispb.RaftClientReplyProto_LeaderNotReadyException:
		class = ratispb.ClassLeaderNotReady
	case *ratispb.RaftClientReplyProto_LeaderSteppingDownException:
		class = ratispb.ClassLeaderSteppingDown
	}
	return &Error{DataNode: st.peer.node, Class: class, Message: errNoRetry.Error()}
}

// tlsHandshakeFailed is what grpc-go's transport says when the TLS handshake fails, e.g. on a
// certificate signed by a CA the client does not trust.
const tlsHandshakeFailed = "authentication handshake failed"

// streamFailed handles the end of a stream: a gRPC status (with the Java class in the
// exception-type trailer), or status OK with calls unanswered.
func (c *Client) streamFailed(st *stream, err error, trailer metadata.MD) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.dead {
		return
	}
	se := &StreamError{DataNode: st.peer.node}
	if v := trailer.Get(ratispb.TrailerExceptionType); len(v) > 0 {
		se.Class = v[0]
	}
	f := failIO
	if errors.Is(err, io.EOF) {
		if len(st.inflight) == 0 { // ended cleanly with nothing in flight: carry on on a new stream
			st.endLocked()
			if len(c.window) > 0 && !c.closed {
				c.openLocked()
			}
			return
		}
		se.Code, se.Description, se.err = codes.OK, datanode.ErrNoReply.Error(), datanode.ErrNoReply
	} else {
		s := status.Convert(err)
		se.Code, se.Description = s.Code(), s.Message()
	}
	switch {
	case se.Class == ratispb.ClassGroupMismatch:
		f = failFinal
	case se.Class == ratispb.ClassResourceUnavailable:
		f = failResource
	case se.Code == codes.Unavailable && strings.Contains(se.Description, tlsHandshakeFailed):
		// A certificate this client does not trust stays untrusted: retrying (as Java does, for
		// minutes, logging each attempt) only hides the reason.
		f = failFinal
	}
	c.resetLocked(st, f, se, nil, nil)
}

// resetLocked gives up stream st after a failure of class f (err when the policy says stop):
// it asks the policy about the oldest unanswered call, fails the whole window when the answer
// is no (as Java fails every request from there on), and otherwise moves to the suggested
// leader (NotLeader), keeps the leader (LeaderNotReady, ResourceUnavailable) or tries the next
// peer (anything else), then resends the window on a new stream after the policy's sleep.
func (c *Client) resetLocked(st *stream, f failure, err error, suggested *ratispb.RaftPeerProto, peers []*ratispb.RaftPeerProto) {
	st.endLocked()
	for _, k := range st.inflight {
		k.counts[f]++
	}
	c.learnPeersLocked(peers)
	switch {
	case f == failNotLeader && suggested != nil:
		c.leader = c.peerIndexLocked(suggested)
	case f == failNotReady || f == failResource:
	default:
		c.leader = (c.leader + 1) % len(c.peers)
	}
	if len(c.window) == 0 {
		return
	}
	oldest := c.window[0]
	sleep, retry := c.opts.Retry.decide(oldest.typ, f, max(1, oldest.counts[f]), time.Since(oldest.created), rnd())
	if !retry {
		for len(c.window) > 0 {
			c.finishLocked(c.window[0], outcome{err: err, node: st.peer.node})
		}
		return
	}
	if f == failNotLeader && suggested != nil {
		sleep = 0 // Ratis: RaftClientImpl.getEffectiveSleepTime
	}
	if sleep <= 0 {
		c.openLocked()
		return
	}
	c.pending.Add(1)
	c.retryTimer = time.AfterFunc(sleep, func() {
		defer c.pending.Done()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.retryTimer = nil
		if !c.closed && c.st == nil && len(c.window) > 0 {
			c.openLocked()
		}
	})
}

// learnPeersLocked adds the peers of a NotLeader's configuration the client does not know.
func (c *Client) learnPeersLocked(peers []*ratispb.RaftPeerProto) {
	for _, p := range peers {
		c.peerIndexLocked(p)
	}
}

// peerIndexLocked returns the index of p among the known peers, adding it if it is new.
func (c *Client) peerIndexLocked(p *ratispb.RaftPeerProto) int {
	for i, q := range c.peers {
		if string(q.id) == string(p.GetId()) {
			return i
		}
	}
	addr := p.GetClientAddress()
	if addr == "" {
		addr = p.GetAddress()
	}
	c.peers = append(c.peers, &peer{node: datanode.DataNode{UUID: string(p.GetId()), Addr: addr}, id: p.GetId()})
	return len(c.peers) - 1
}
