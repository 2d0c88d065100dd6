package raftsim

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// taken is what taking a request gave: a reply now, a retry-cache entry whose reply comes once
// the write is applied on this member, or an error that ends the stream.
type taken struct {
	reply *ratispb.RaftClientReplyProto
	wait  *cacheEntry
	cache *retryCache
	err   error
}

// checkLocked is the leader check every read, write and watch goes through first (Ratis:
// RaftServerImpl.checkLeaderState): a reply for a member that is not a ready leader, else nil.
func (g *Group) checkLocked(m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto) *ratispb.RaftClientReplyProto {
	switch {
	case g.leader != m.idx:
		return g.notLeaderLocked(m, client, rpc)
	case !g.ready:
		return g.notReadyLocked(m, client, rpc)
	}
	return nil
}

// write takes a write Echo on member m: retry cache, leader validation, then the log. The
// retry cache answers a retry whose first attempt is logged, even while a new leader is not
// ready yet once that attempt completed (Ratis: RaftServerImpl.submitClientRequestAsync).
func (g *Group) write(m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto, header *dnpb.ContainerCommandRequestProto) taken {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.leader != m.idx {
		return taken{reply: g.notLeaderLocked(m, client, rpc)}
	}
	key := cacheKey{client: client, call: rpc.GetCallId()}
	if ce := m.cache.get(key); ce != nil && (g.ready || m.cache.completed(ce)) {
		g.stats.cacheHits++
		return taken{wait: ce, cache: m.cache}
	}
	if !g.ready {
		return taken{reply: g.notReadyLocked(m, client, rpc)}
	}
	if sme := m.r.StartTransaction(header); sme != nil {
		g.stats.rejected++
		r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
		if len(sme.Stacktrace) == 0 {
			sme.Stacktrace = emptyStackTrace
		}
		r.ExceptionDetails = smeDetails(sme)
		return taken{reply: r}
	}
	if g.pending >= g.opts.PendingWrites {
		return taken{err: streamError(ratispb.ClassResourceUnavailable, fmt.Sprintf("%s@%s: Failed to acquire a pending write request for %s",
			m.r.PeerID(), g.LogID(), rpcString(rpc)))}
	}
	logged := proto.Clone(header).(*dnpb.ContainerCommandRequestProto)
	logged.EncodedToken = nil // the log entry carries no token (Ozone: ContainerStateMachine.startTransaction)
	logged.PipelineID = proto.String(g.idText)
	ce := m.cache.getOrCreate(key)
	g.appendLocked(&entry{key: key, header: logged}, m.idx)
	return taken{wait: ce, cache: m.cache}
}

// read runs a read-only Echo on member m when it is the ready leader: a query, no log entry.
func (g *Group) read(ctx context.Context, m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto, header *dnpb.ContainerCommandRequestProto) (*ratispb.RaftClientReplyProto, error) {
	g.mu.Lock()
	r := g.checkLocked(m, client, rpc)
	g.mu.Unlock()
	if r != nil {
		return r, nil
	}
	resp, err := m.r.Query(ctx, header)
	if err != nil {
		return nil, err
	}
	content, err := proto.Marshal(resp)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r = g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
	r.RpcReply.Success = true
	r.Message = &ratispb.ClientMessageEntryProto{Content: content}
	return r, nil
}

// watchNow answers a watch that needs no waiting (the initial watch, index 0, always), else nil.
func (g *Group) watchNow(m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto, index uint64) *ratispb.RaftClientReplyProto {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.checkLocked(m, client, rpc); r != nil || index > g.commit {
		return r
	}
	r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
	r.RpcReply.Success = true
	r.LogIndex = g.commit
	return r
}

// watch answers a watch once the commit index reaches index, or with NotReplicated after the
// watch timeout.
func (g *Group) watch(ctx context.Context, m *member, client [16]byte, rpc *ratispb.RaftRpcRequestProto, index uint64) *ratispb.RaftClientReplyProto {
	timeout := time.NewTimer(g.opts.WatchTimeout)
	defer timeout.Stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	if r := g.checkLocked(m, client, rpc); r != nil {
		return r
	}
	for g.commit < index {
		wait := g.commitWait
		g.mu.Unlock()
		select {
		case <-wait:
			g.mu.Lock()
			continue
		case <-timeout.C:
		case <-ctx.Done():
		}
		g.mu.Lock()
		r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
		r.ExceptionDetails = &ratispb.RaftClientReplyProto_NotReplicatedException{NotReplicatedException: &ratispb.NotReplicatedExceptionProto{
			CallId: rpc.GetCallId(), LogIndex: index}}
		return r
	}
	r := g.replyLocked(m, client, rpc.GetCallId(), rpc.GetReplyId())
	r.RpcReply.Success = true
	r.LogIndex = g.commit
	return r
}

// rpcString names a request in messages the way Ratis does ("client-…->peer@group-…, cid=2").
func rpcString(rpc *ratispb.RaftRpcRequestProto) string {
	return ratispb.LogID("client-", rpc.GetRequestorId()) + "->" + string(rpc.GetReplyId()) + "@" +
		ratispb.LogID("group-", rpc.GetRaftGroupId().GetId()) + ", cid=" + strconv.FormatUint(rpc.GetCallId(), 10) +
		", seq=" + strconv.FormatUint(rpc.GetSlidingWindowEntry().GetSeqNum(), 10)
}
