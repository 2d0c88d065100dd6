package raftsim

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// streamErr is an error that ends a stream the way Ratis does (Ratis: GrpcUtil.wrapException):
// status INTERNAL, the exception's message as description, its class in the exception-type
// trailer.
type streamErr struct {
	class, msg string
}

func (e *streamErr) Error() string { return e.class + ": " + e.msg }

func streamError(class, msg string) error { return &streamErr{class: class, msg: msg} }

// fail turns err into the stream's final status.
func (st *orderedStream) fail(err error) error {
	var se *streamErr
	if st.g != nil {
		st.g.countStreamError()
	}
	if !errors.As(err, &se) {
		return err
	}
	st.ss.SetTrailer(metadata.Pairs(ratispb.TrailerExceptionType, se.class))
	return status.Error(codes.Internal, se.msg)
}

// check applies the checks every request passes before the window (Ratis: the request's
// conversion from proto, ClientProtoUtils, and the ordered observer).
func check(req *ratispb.RaftClientRequestProto) error {
	rpc := req.GetRpcRequest()
	switch {
	case rpc.GetSlidingWindowEntry() == nil:
		return streamError(ratispb.ClassNullPointer, "")
	case len(rpc.GetRequestorId()) != 16:
		return streamError(ratispb.ClassIllegalState, fmt.Sprintf("Invalid ClientId: the length is %d but it must be 16", len(rpc.GetRequestorId())))
	case len(rpc.GetRaftGroupId().GetId()) != 16:
		return streamError(ratispb.ClassIllegalState, fmt.Sprintf("Invalid RaftGroupId: the length is %d but it must be 16", len(rpc.GetRaftGroupId().GetId())))
	case len(rpc.GetReplyId()) == 0:
		return streamError(ratispb.ClassIllegalState, "The replyId (the server id) is empty")
	}
	switch req.GetType().(type) {
	case *ratispb.RaftClientRequestProto_Read, *ratispb.RaftClientRequestProto_Write, *ratispb.RaftClientRequestProto_Watch:
		return nil
	case nil:
		return streamError(ratispb.ClassIllegalArgument, "Unexpected request type: TYPE_NOT_SET")
	}
	return streamError(ratispb.ClassIllegalArgument, fmt.Sprintf("raftsim: request type %T is not emulated (Echo sends read, write and watch)", req.GetType()))
}

// onRequest puts one request through the checks and the window, then takes what is in order.
func (st *orderedStream) onRequest(req *ratispb.RaftClientRequestProto) error {
	if err := check(req); err != nil {
		return st.fail(err)
	}
	rpc := req.GetRpcRequest()
	if err := st.bind(rpc); err != nil {
		return st.fail(err)
	}
	if f := st.g.opts.OnRequest; f != nil {
		f(Received{Member: st.m.idx, Stream: st.num, Req: req})
	}
	st.m.cache.evict([16]byte(rpc.GetRequestorId()), rpc.GetRepliedCallIds())
	w := rpc.GetSlidingWindowEntry()
	seq := w.GetSeqNum()
	switch {
	case seq == 0: // not windowed: taken on arrival
		return st.take(req)
	case !st.started && w.GetIsFirst():
		st.started, st.next = true, seq
	case st.started && seq < st.next:
		st.mu.Lock()
		st.queue = append(st.queue, &slot{rpc: rpc, never: true})
		st.mu.Unlock()
		return nil
	}
	if _, dup := st.buffered[seq]; dup {
		return nil
	}
	st.buffered[seq] = req
	return st.takeReady()
}

// bind ties the stream to the group of its first request; another group later ends it.
func (st *orderedStream) bind(rpc *ratispb.RaftRpcRequestProto) error {
	id := rpc.GetRaftGroupId().GetId()
	if st.g != nil {
		if [16]byte(id) != st.g.id {
			return streamError(ratispb.ClassGroupMismatch, fmt.Sprintf("%s: The group (%s) of %s does not match the group (%s) of the OrderedRequestStreamObserver",
				st.svc.peerID, ratispb.LogID("group-", id), ratispb.LogID("client-", rpc.GetRequestorId()), st.g.LogID()))
		}
		return nil
	}
	g, m := st.svc.group(id)
	if g == nil || m == nil {
		return streamError(ratispb.ClassGroupMismatch, st.svc.peerID+": "+ratispb.LogID("group-", id)+" not found.")
	}
	st.g, st.m = g, m
	st.num = g.addStream(st, m)
	return nil
}

// takeReady takes buffered requests while the next one is there and no read is running.
func (st *orderedStream) takeReady() error {
	for !st.busy {
		req, ok := st.buffered[st.next]
		if !ok {
			return nil
		}
		delete(st.buffered, st.next)
		st.next++
		if err := st.take(req); err != nil {
			return err
		}
	}
	return nil
}

// take submits one request: a read runs to the end before the next request is taken, a write
// is logged now and answered once applied, a watch is answered when the commit index allows.
func (st *orderedStream) take(req *ratispb.RaftClientRequestProto) error {
	rpc := req.GetRpcRequest()
	client := [16]byte(rpc.GetRequestorId())
	s := &slot{rpc: rpc}
	st.mu.Lock()
	st.queue = append(st.queue, s)
	st.mu.Unlock()
	g, m := st.g, st.m
	if w, ok := req.GetType().(*ratispb.RaftClientRequestProto_Watch); ok {
		if r := g.watchNow(m, client, rpc, w.Watch.GetIndex()); r != nil {
			st.answer(s, r)
			return nil
		}
		st.wg.Add(1)
		go func() {
			defer st.wg.Done()
			st.answer(s, g.watch(st.ctx, m, client, rpc, w.Watch.GetIndex()))
		}()
		return nil
	}
	header, err := st.unwrap(req)
	if err != nil {
		return st.fail(err)
	}
	if req.GetWrite() != nil {
		t := g.write(m, client, rpc, header)
		switch {
		case t.err != nil:
			return st.fail(t.err)
		case t.reply != nil:
			st.answer(s, t.reply)
		default:
			t.cache.subscribe(t.wait, func() { st.answer(s, t.wait.reply) })
		}
		return nil
	}
	st.busy = true
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		r, err := g.read(st.ctx, m, client, rpc, header)
		if err == nil {
			st.answer(s, r)
		}
		st.readDone <- err // a failed query ends the stream (Ratis: GrpcClientProtocolService)
	}()
	return nil
}

// unwrap reads the Echo request inside a request's content as a DataNode does (Ozone:
// ContainerCommandRequestMessage.toProto): a bad length or a request that does not parse ends
// the stream, and so does a pipelineID that is not the group's.
func (st *orderedStream) unwrap(req *ratispb.RaftClientRequestProto) (*dnpb.ContainerCommandRequestProto, error) {
	b, err := ratispb.UnwrapEcho(req.GetMessage().GetContent())
	if err != nil {
		return nil, streamError(ratispb.ClassIndexOutOfBounds, err.Error())
	}
	h := new(dnpb.ContainerCommandRequestProto)
	if err := proto.Unmarshal(b, h); err != nil {
		return nil, streamError(ratispb.ClassInvalidProtocolBuffer, err.Error())
	}
	if pid := h.GetPipelineID(); h.PipelineID != nil && pid != st.g.idText {
		return nil, streamError(ratispb.ClassInvalidProtocolBuffer, "ID mismatched: PipelineID "+pid+" does not match the groupId "+st.g.idText)
	}
	h.PipelineID = proto.String(st.g.idText)
	return h, nil
}
