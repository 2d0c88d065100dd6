// Package omsim emulates the part of an Ozone Manager a secure freon uses: the ServiceList call
// that hands out the SCM CA certificates, over Hadoop RPC, optionally Kerberized (listing TOKEN
// before KERBEROS as a real OM does) and as an HA service (several OMs under one service id)
// whose followers answer OMNotLeaderException. It listens on 127.0.0.1 only.
package omsim

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/om"
	"github.com/dnecho/dnecho/proto/ompb"
)

// Config configures an emulated OM service.
type Config struct {
	// Nodes is the number of OMs; node 0 leads. Default 1.
	Nodes int
	// CAPEM are the CA certificates served, one PEM block each in caCerts (and the first as
	// caCertificate).
	CAPEM []byte
	// RPC configures the Hadoop RPC servers (Kerberos acceptor, protection). OfferToken is set.
	RPC rpcserver.Options
}

// Service is a running set of OMs, what Ozone calls an OM service (one service id, one leader).
type Service struct {
	cfg    Config
	certs  []string
	mu     sync.Mutex
	leader int
	nodes  []*node
}

type node struct {
	srv  *rpcserver.Server
	addr string
	done chan struct{}
}

// Start starts the OMs on free 127.0.0.1 ports.
func Start(cfg Config) (*Service, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 1
	}
	g := &Service{cfg: cfg, certs: splitPEM(cfg.CAPEM)}
	cfg.RPC.OfferToken = true
	for i := 0; i < cfg.Nodes; i++ {
		srv, err := rpcserver.New(cfg.RPC)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("omsim: %w", err)
		}
		idx := i
		srv.Register(om.Protocol, 1, "submitRequest", func(ctx context.Context, call rpcserver.CallInfo, b []byte) (proto.Message, error) {
			return g.submit(idx, b)
		})
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("omsim: %w", err)
		}
		n := &node{srv: srv, addr: l.Addr().String(), done: make(chan struct{})}
		go func() { defer close(n.done); srv.Serve(l) }()
		g.nodes = append(g.nodes, n)
	}
	return g, nil
}

// Addrs returns the OM addresses in node order.
func (g *Service) Addrs() []string {
	var out []string
	for _, n := range g.nodes {
		out = append(out, n.addr)
	}
	return out
}

// SetLeader makes node i the leader.
func (g *Service) SetLeader(i int) {
	g.mu.Lock()
	g.leader = i
	g.mu.Unlock()
}

// Close stops every OM.
func (g *Service) Close() error {
	for _, n := range g.nodes {
		n.srv.Close()
		<-n.done
	}
	return nil
}

// submit serves OzoneManagerService.submitRequest for ServiceList.
// Ozone: OzoneManagerRequestHandler.getServiceList / OzoneManager.getServiceInfo.
func (g *Service) submit(idx int, b []byte) (proto.Message, error) {
	var req ompb.OMRequest
	if err := rpcserver.UnmarshalRequest(b, &req); err != nil {
		return nil, err
	}
	g.mu.Lock()
	leader := g.leader
	g.mu.Unlock()
	if idx != leader {
		return nil, &hadooprpc.RemoteError{Class: "org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException",
			Message: fmt.Sprintf("OM:om%d is not the leader. Suggested leader is OM:om%d[%s].", idx+1, leader+1, g.nodes[leader].addr)}
	}
	resp := &ompb.OMResponse{CmdType: req.CmdType, Status: proto.Int32(1), Success: proto.Bool(true)}
	if req.GetCmdType() != 51 {
		resp.Status, resp.Success = proto.Int32(39), proto.Bool(false) // INVALID_REQUEST
		resp.Message = proto.String(fmt.Sprintf("omsim serves only ServiceList (51), not %d", req.GetCmdType()))
		return resp, nil
	}
	sl := &ompb.ServiceListResponse{CaCerts: g.certs}
	if len(g.certs) > 0 {
		sl.CaCertificate = &g.certs[0]
	}
	resp.ServiceListResponse = sl
	return resp, nil
}

// splitPEM returns each PEM block of b as its own string.
func splitPEM(b []byte) []string {
	var out []string
	for _, part := range strings.SplitAfter(string(b), "-----END CERTIFICATE-----") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p+"\n")
		}
	}
	return out
}
