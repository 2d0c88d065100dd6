package ratis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Client is one Raft client of one pipeline (one XceiverClientRatis in Ozone). It is safe for
// concurrent use; Echo calls share its ordered stream, as Java's async calls do.
type Client struct {
	opts    Options
	id      [16]byte
	group   *ratispb.RaftGroupIdProto
	first   string // members[0] in Java's order: the Echo header's datanodeUuid
	creds   credentials.TransportCredentials
	slots   chan struct{}
	ctx     context.Context // parent of the streams; cancelled by Close
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	pending sync.WaitGroup // retry timers in flight

	mu         sync.Mutex
	peers      []*peer
	leader     int     // index into peers
	st         *stream // current stream; nil before the first call and while a retry waits
	window     []*call // unanswered calls, oldest first
	nextCall   uint64
	nextSeq    uint64   // sequence number of the last call submitted (Ratis: SlidingWindow.Client)
	replied    []uint64 // write call ids answered since the last new request
	watched    bool
	retryTimer *time.Timer
	closed     bool
}

// peer is a Raft peer the client may talk to, with its connection (made on first use).
type peer struct {
	node datanode.DataNode // uuid and the RATIS address dialled
	id   []byte            // peer id: the uuid text
	conn *grpc.ClientConn
}

// New builds a Client for pipeline. Like Java it targets the member SCM lists as the leader
// (leaderDatanodeID, else leaderID128, else leaderID), else the first member; it connects lazily
// on the first call. A member without a RATIS port is a *MissingPortError.
func New(pipeline *hddspb.Pipeline, opts Options) (*Client, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	gid, err := ratispb.GroupID(pipeline)
	if err != nil {
		return nil, fmt.Errorf("ratis: %w", err)
	}
	members := datanode.OrderMembers(pipeline.GetMembers())
	if len(members) == 0 {
		return nil, errors.New("ratis: pipeline has no members")
	}
	c := &Client{opts: opts, id: opts.ClientID, group: &ratispb.RaftGroupIdProto{Id: gid[:]},
		first: hddspb.DatanodeUUID(members[0]), creds: insecure.NewCredentials(),
		slots: make(chan struct{}, opts.MaxOutstanding)}
	if c.id == [16]byte{} {
		c.id = hddspb.NewRandomUUID()
	}
	if opts.TLS != nil {
		if c.creds, err = datanode.TransportCredentials(opts.TLS); err != nil {
			return nil, err
		}
	}
	leader := leaderOf(pipeline)
	for i, m := range members {
		p, err := peerOf(m, opts.UseHostname)
		if err != nil {
			return nil, err
		}
		c.peers = append(c.peers, &peer{node: datanode.DataNode{UUID: string(p.Id), Addr: p.ClientAddress}, id: p.Id})
		if string(p.Id) == leader {
			c.leader = i
		}
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// leaderOf is the leader SCM lists for the pipeline ("" when none): leaderDatanodeID, else
// leaderID128, else leaderID (Ozone: Pipeline.getLeaderId).
func leaderOf(p *hddspb.Pipeline) string {
	switch {
	case p.GetLeaderDatanodeID().GetUuid() != nil:
		return p.GetLeaderDatanodeID().GetUuid().Text()
	case p.GetLeaderID128() != nil:
		return p.GetLeaderID128().Text()
	}
	return p.GetLeaderID()
}

// ID is the client id as UUID text.
func (c *Client) ID() string { return hddspb.UUIDText(c.id) }

// Members returns the peers the client knows, the one it takes for the leader first.
func (c *Client) Members() []datanode.DataNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []datanode.DataNode{c.peers[c.leader].node}
	for i, p := range c.peers {
		if i != c.leader {
			out = append(out, p.node)
		}
	}
	return out
}

// Close ends the stream and the connections; calls in flight fail with ErrClosed at once. Like
// the Java client it half-closes the stream and waits up to CloseTimeout for the server to end it
// before cancelling it.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.retryTimer != nil && c.retryTimer.Stop() {
		c.pending.Done()
	}
	for len(c.window) > 0 {
		c.finishLocked(c.window[0], outcome{err: ErrClosed})
	}
	if c.st != nil {
		c.st.endLocked()
	}
	c.mu.Unlock()
	c.pending.Wait()
	c.wg.Wait() // every stream ends within CloseTimeout of its half-close
	c.cancel()
	for _, p := range c.peers {
		if p.conn != nil {
			_ = p.conn.Close()
		}
	}
	return nil
}

// Prepared is an Echo request encoded for a Client: the wrapped Echo and its Raft type.
type Prepared struct {
	client *Client
	typ    reqType
	msg    *ratispb.ClientMessageEntryProto
}

// Prepare encodes r as Ozone's client does (the Echo request with datanodeUuid = the first
// member, wrapped with its length) and picks the Raft type: read when r.ReadOnly, else write.
func (c *Client) Prepare(r datanode.Request) (*Prepared, error) {
	header, err := proto.Marshal(datanode.NewEchoRequest(r, c.first))
	if err != nil {
		return nil, err
	}
	p := &Prepared{client: c, typ: typeWrite, msg: &ratispb.ClientMessageEntryProto{Content: ratispb.WrapEcho(header)}}
	if r.ReadOnly {
		p.typ = typeRead
	}
	// The rest of a request is ids and numbers: a few hundred bytes at most.
	if n := len(p.msg.Content) + 512; n > MaxRequestSize {
		return nil, fmt.Errorf("ratis: echo request of about %d bytes exceeds the DataNode's %d-byte Ratis message limit", n, MaxRequestSize)
	}
	return p, nil
}

// rnd is the policy's random source, a number in [0, 1).
func rnd() float64 { return rand.Float64() }
