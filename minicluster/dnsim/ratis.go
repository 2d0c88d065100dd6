package dnsim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// RatisMaxMessageSize is the receive limit of a DataNode's Ratis ports: max(32 MiB chunk
// limit, 32 MB appender buffer) + 1 MiB (Ozone: hadoop-hdds/common/src/main/java/org/apache/
// hadoop/hdds/conf/RatisConfUtils.java).
const RatisMaxMessageSize = 32<<20 + 1<<20

// The Ratis ports of a DataNode, each its own port as a current DataNode publishes them
// (Ozone: DatanodeDetails.Port.Name; hdds.container.ratis.ipc.port, .admin.port, .server.port).
// Clients build their peers from them (Ozone: hadoop-hdds/common/src/main/java/org/apache/hadoop/
// hdds/ratis/RatisHelper.java, raftPeerBuilderFor: address = RATIS_SERVER, adminAddress =
// RATIS_ADMIN, clientAddress = RATIS), and so do the emulated group's replies (commitInfos,
// NotLeader's peers).
const (
	ratisClient = iota // RATIS: RaftClientProtocolService, which carries Echo
	ratisAdmin         // RATIS_ADMIN: AdminProtocolService, not emulated
	ratisServer        // RATIS_SERVER: RaftServerProtocolService, not emulated
	numRatisPorts
)

var ratisPortNames = [numRatisPorts]string{ratispb.PortRatis, ratispb.PortRatisAdmin, ratispb.PortRatisServer}

// ratisAddrs are the addresses of the Ratis ports, by the constants above.
type ratisAddrs [numRatisPorts]*net.TCPAddr

// ports are the port numbers, 0 for a port not yet listened on.
func (a ratisAddrs) ports() [numRatisPorts]int {
	var p [numRatisPorts]int
	for i, addr := range a {
		if addr != nil {
			p[i] = addr.Port
		}
	}
	return p
}

// listenRatisLocked serves the Ratis ports on addrs (nil entries pick free ports). The admin
// and server ports run a gRPC server without services: they are taken, as on a real DataNode,
// and a call there gets UNIMPLEMENTED.
func (d *DataNode) listenRatisLocked(addrs ratisAddrs) error {
	var lis [numRatisPorts]*net.TCPListener
	for i, a := range addrs {
		if a == nil {
			a = loopback()
		}
		l, err := net.ListenTCP("tcp4", a)
		if err != nil {
			for _, l := range lis[:i] {
				l.Close()
			}
			return fmt.Errorf("dnsim: listen %s (%s): %w", a, ratisPortNames[i], err)
		}
		lis[i] = l
	}
	for i, l := range lis {
		d.ratisAddrs[i] = l.Addr().(*net.TCPAddr)
		srv := d.newRatisServer(i == ratisClient)
		d.ratisSrvs = append(d.ratisSrvs, srv)
		d.serve(srv, l)
	}
	return nil
}

// newRatisServer is a gRPC server for a Ratis port, with the Ratis client service when client
// is set: TLS without client authentication when TLS is on, like the real RATIS port (the real
// admin and server ports require mutual TLS, which Echo never meets).
func (d *DataNode) newRatisServer(client bool) *grpc.Server {
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(RatisMaxMessageSize), grpc.WaitForHandlers(true), raftsim.ServerOption()}
	if d.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(d.tls.serverConfig())))
	}
	srv := grpc.NewServer(opts...)
	if client {
		d.ratis.Register(srv)
	}
	return srv
}

// RatisPort returns the RATIS port, or 0 before the first Start or with NoRatis.
func (d *DataNode) RatisPort() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ratisAddrs.ports()[ratisClient]
}

// JoinGroup makes the DataNode serve a Raft group it is a member of on its RATIS port.
func (d *DataNode) JoinGroup(g *raftsim.Group) error {
	if d.ratis == nil {
		return errors.New("dnsim: JoinGroup on a DataNode without Ratis (NoRatis)")
	}
	return d.ratis.Join(g)
}

// The raftsim.Replica methods.

// PeerID is the DataNode's uuid text.
func (d *DataNode) PeerID() string { return d.uuidText }

// Peer is the DataNode as a Raft peer with its current ports.
func (d *DataNode) Peer() *ratispb.RaftPeerProto {
	p, err := ratispb.PeerOf(d.Details(), false, 0)
	if err != nil { // only with NoRatis, which never joins a group
		return &ratispb.RaftPeerProto{Id: []byte(d.uuidText)}
	}
	return p
}

// Query runs a read-only Echo for the Ratis path on the leader: the gRPC path's dispatch,
// token check included (Ozone: ContainerStateMachine.query), in one of the handlers.
func (d *DataNode) Query(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	d.stats.handlers.queries.Add(1)
	return d.handle(ctx, req, true)
}

// Apply runs a committed write Echo on this replica: no token check, and, as the Echo is not
// read-only, the missing-container check (Ozone: ContainerStateMachine.applyTransaction).
func (d *DataNode) Apply(ctx context.Context, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	d.stats.handlers.applies.Add(1)
	return d.handle(ctx, req, false)
}

// Messages of the leader's validation (Ozone: ContainerStateMachine.startTransaction and
// HddsDispatcher.validateToken; docs/ozone-ratis.md#errors).
const msgRatisTokenMissing = "BLOCK_TOKEN_VERIFICATION_FAILED: Failed to find any token (empty or null.)"

// StartTransaction validates a write on the leader: a token when tokens are verified, and a
// container it holds must be OPEN or RECOVERING. A container it lacks passes here; its apply
// fails later on every replica that lacks it, which is what closes a real pipeline.
func (d *DataNode) StartTransaction(req *dnpb.ContainerCommandRequestProto) *ratispb.StateMachineExceptionProto {
	if d.tokenVerification {
		tok := req.GetEncodedToken()
		if tok == "" {
			return &ratispb.StateMachineExceptionProto{ExceptionClassName: ratispb.ClassStorageContainer, ErrorMsg: msgRatisTokenMissing}
		}
		if decodeToken(tok) != nil {
			return &ratispb.StateMachineExceptionProto{ExceptionClassName: ratispb.ClassStorageContainer,
				ErrorMsg: "BLOCK_TOKEN_VERIFICATION_FAILED: Failed to decode token : " + tok}
		}
	}
	id := req.GetContainerID()
	if _, held := d.containers[id]; held {
		state, ok := (*d.states.Load())[id]
		if ok && state != hddspb.LifeCycleState_OPEN && state != hddspb.LifeCycleState_RECOVERING {
			return &ratispb.StateMachineExceptionProto{ExceptionClassName: ratispb.ClassContainerNotOpen,
				ErrorMsg: "Container " + strconv.FormatInt(id, 10) + " in " + state.String() + " state"}
		}
	}
	return nil
}

// handle runs one Echo of the Ratis path in a handler: it waits for one of HandlerCount.
func (d *DataNode) handle(ctx context.Context, req *dnpb.ContainerCommandRequestProto, checkToken bool) (*dnpb.ContainerCommandResponseProto, error) {
	h := &d.stats.handlers
	peak(&h.queuedPeak, h.queued.Add(1))
	select {
	case d.handlers <- struct{}{}:
		h.queued.Add(-1)
	case <-ctx.Done():
		h.queued.Add(-1)
		return nil, ctx.Err()
	}
	defer func() {
		h.busy.Add(-1)
		<-d.handlers
	}()
	peak(&h.busyPeak, h.busy.Add(1))
	f := d.faults.Load()
	if delay := f.Latency + jitter(f.Jitter); delay > 0 {
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
	return d.dispatchChecked(ctx, req, checkToken)
}

// handlerStats count the Ratis path's use of the handlers.
type handlerStats struct {
	queries, applies     atomic.Uint64
	busy, queued         atomic.Int64
	busyPeak, queuedPeak atomic.Int64
}

// peak raises p to v if v is higher.
func peak(p *atomic.Int64, v int64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}
