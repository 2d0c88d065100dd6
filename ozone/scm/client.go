// Package scm is a client of the Ozone SCM's StorageContainerLocationProtocol
// over Hadoop RPC: the calls that find a container's pipeline and token, with
// the Java client's HA failover and retry policy.
//
// Wire facts: docs/ozone-scm.md#storagecontainerlocationprotocol, docs/ozone-scm.md#admin-checks,
// docs/ozone-scm.md#addresses-and-ha-failover; apache/ozone:
// hadoop-hdds/interface-admin/src/main/proto/ScmAdminProtocol.proto.
package scm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// Client talks to one SCM or an HA group of SCMs. It starts with the first
// address and sticks to whichever SCM last answered, as Java's failover proxy
// provider does. Safe for concurrent use.
type Client struct {
	opts  Options
	nodes []*hadooprpc.Client

	mu      sync.Mutex
	current int
	quiet   []time.Duration // per node: how long its next attempt may stay silent
	silent  []bool          // per node: its last attempt stayed silent
}

// New returns a client; it connects on the first call.
func New(opts Options) (*Client, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	nodes, err := hadooprpc.NewClients(o.Addresses, o.RPC)
	if err != nil {
		return nil, fmt.Errorf("scm %w", err)
	}
	c := &Client{opts: o, nodes: nodes, quiet: make([]time.Duration, len(nodes)), silent: make([]bool, len(nodes))}
	for i := range c.quiet {
		c.quiet[i] = o.RPCTimeout
	}
	return c, nil
}

// Close closes every connection.
func (c *Client) Close() error {
	hadooprpc.CloseAll(c.nodes)
	return nil
}

// newRequest builds the wrapper exactly as the Java client does: cmdType,
// traceID "", version 3 (docs/ozone-scm.md#what-the-java-client-sends).
func newRequest(t scmpb.Type) *scmpb.ScmContainerLocationRequest {
	return &scmpb.ScmContainerLocationRequest{CmdType: t.Enum(), TraceID: proto.String(""), Version: proto.Uint32(ClientVersion)}
}

func containerID64(id uint64) (*int64, error) {
	if id > math.MaxInt64 {
		return nil, fmt.Errorf("scm: container id %d does not fit the protocol's int64", id)
	}
	v := int64(id)
	return &v, nil
}

// GetContainer returns the container's info (admin call when authorization is on).
func (c *Client) GetContainer(ctx context.Context, id uint64) (*hddspb.ContainerInfoProto, error) {
	cid, err := containerID64(id)
	if err != nil {
		return nil, err
	}
	req := newRequest(scmpb.Type_GetContainer)
	req.GetContainerRequest = &scmpb.GetContainerRequestProto{ContainerID: cid, TraceID: proto.String("")}
	resp, addr, err := c.invoke(ctx, fmt.Sprintf("get container %d", id), req)
	if err != nil {
		return nil, err
	}
	info := resp.GetGetContainerResponse().GetContainerInfo()
	if info == nil {
		return nil, fmt.Errorf("scm %s: get container %d: reply has no containerInfo", addr, id)
	}
	return info, nil
}

// ListPipelines returns every pipeline in every state.
func (c *Client) ListPipelines(ctx context.Context) ([]*hddspb.Pipeline, error) {
	req := newRequest(scmpb.Type_ListPipelines)
	req.ListPipelineRequest = &scmpb.ListPipelineRequestProto{TraceID: proto.String("")}
	resp, addr, err := c.invoke(ctx, "list pipelines", req)
	if err != nil {
		return nil, err
	}
	if resp.ListPipelineResponse == nil {
		return nil, fmt.Errorf("scm %s: list pipelines: reply has no listPipelineResponse", addr)
	}
	return resp.GetListPipelineResponse().GetPipelines(), nil
}

// GetContainerWithPipeline returns the container and the pipeline SCM picks
// for reading it (its own pipeline if OPEN, else one built from replicas).
func (c *Client) GetContainerWithPipeline(ctx context.Context, id uint64) (*hddspb.ContainerWithPipeline, error) {
	cid, err := containerID64(id)
	if err != nil {
		return nil, err
	}
	req := newRequest(scmpb.Type_GetContainerWithPipeline)
	req.GetContainerWithPipelineRequest = &scmpb.GetContainerWithPipelineRequestProto{ContainerID: cid, TraceID: proto.String("")}
	resp, addr, err := c.invoke(ctx, fmt.Sprintf("get container %d with pipeline", id), req)
	if err != nil {
		return nil, err
	}
	cwp := resp.GetGetContainerWithPipelineResponse().GetContainerWithPipeline()
	if cwp == nil {
		return nil, fmt.Errorf("scm %s: get container %d with pipeline: reply has no containerWithPipeline", addr, id)
	}
	return cwp, nil
}

// GetContainerToken returns a container token for the calling user; a
// token-disabled SCM returns the empty token (encodes as "AAAAAA").
func (c *Client) GetContainerToken(ctx context.Context, id uint64) (token.Token, error) {
	req := newRequest(scmpb.Type_GetContainerToken)
	req.ContainerTokenRequest = &scmpb.GetContainerTokenRequestProto{ContainerID: &hddspb.ContainerID{Id: &id}}
	resp, addr, err := c.invoke(ctx, fmt.Sprintf("get container token %d", id), req)
	if err != nil {
		return token.Token{}, err
	}
	tp := resp.GetContainerTokenResponse().GetToken()
	if tp == nil {
		return token.Token{}, fmt.Errorf("scm %s: get container token %d: reply has no token", addr, id)
	}
	return token.FromProto(tp), nil
}

// invoke sends req with the failover policy and returns the reply and the
// address of the SCM that gave it. Attempts start at least RetryInterval
// apart: an attempt that stayed silent for longer is followed at once.
func (c *Client) invoke(ctx context.Context, op string, req *scmpb.ScmContainerLocationRequest) (*scmpb.ScmContainerLocationResponse, string, error) {
	last := make([]error, len(c.nodes))
	for attempt := 1; ; attempt++ {
		idx, quiet := c.nextAttempt()
		node := c.nodes[idx]
		began := time.Now()
		resp := new(scmpb.ScmContainerLocationResponse)
		err := node.CallWithin(ctx, quiet, Protocol, "submitRequest", req, resp)
		c.settle(idx, err)
		if err == nil {
			return resp, node.Addr(), nil
		}
		last[idx] = err
		if ctx.Err() != nil {
			if errors.Is(err, ctx.Err()) { // what this SCM did, not why the caller stopped
				last[idx] = fmt.Errorf("no answer in %s, before the time ran out", time.Since(began).Round(time.Millisecond))
			}
			return nil, "", c.unreachable(op, attempt, last, ctx.Err())
		}
		r := Retry{From: c.node(idx), Err: err, Pause: max(0, c.opts.RetryInterval-time.Since(began))}
		switch decide(err) {
		case actFail:
			return nil, "", c.final(node.Addr(), op, err)
		case actFailover:
			c.failover(idx, &r)
		}
		if attempt > c.opts.MaxRetries {
			return nil, "", c.unreachable(op, attempt, last, ErrRetriesExhausted)
		}
		r.To = c.node(c.currentNode())
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(r)
		}
		if err := sleep(ctx, r.Pause); err != nil {
			return nil, "", c.unreachable(op, attempt, last, err)
		}
	}
}

// node names SCM i.
func (c *Client) node(i int) Node {
	n := Node{Addr: c.nodes[i].Addr()}
	if len(c.opts.NodeIDs) > 0 {
		n.ID = c.opts.NodeIDs[i]
	}
	return n
}

// final turns a non-retried failure into the error callers branch on.
func (c *Client) final(addr, op string, err error) error {
	var re *hadooprpc.RemoteError
	if errors.As(err, &re) {
		switch re.SimpleName() {
		case "ContainerNotFoundException":
			return fmt.Errorf("scm %s: %s: %w", addr, op, &notFoundError{remote: re})
		case "AccessControlException":
			return &AccessDeniedError{Addr: addr, Op: op, User: c.opts.RPC.User, Remote: re}
		}
	}
	return fmt.Errorf("scm %s: %s: %w", addr, op, err)
}

func (c *Client) unreachable(op string, attempts int, last []error, why error) error {
	e := &UnreachableError{Op: op, Attempts: attempts, Err: why}
	for i := range c.nodes {
		e.Nodes = append(e.Nodes, NodeError{Node: c.node(i), Err: last[i]})
	}
	return e
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
