// Package om is the small part of an Ozone Manager client a secure freon needs: the ServiceList
// call (getServiceInfo) that hands out the SCM CA certificates, over Hadoop RPC with the OM HA
// failover of the Java client.
//
// Wire facts: apache/ozone hadoop-ozone/interface-client/src/main/proto/OmClientProtocol.proto
// (OMRequest, OMResponse, ServiceListResponse), .../om/protocolPB/OzoneManagerProtocolPB.java
// (protocol name and version) and .../om/ha/OMFailoverProxyProviderBase.java (failover);
// docs/kerberos.md summarises them.
package om

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/ompb"
)

// Protocol is the OM client protocol name (version 1, method submitRequest).
const Protocol = "org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol"

// Values of OMRequest/OMResponse fields (OmClientProtocol.proto enums Type and Status; Ozone's
// ClientVersion).
const (
	typeServiceList = 51
	statusOK        = 1
	clientVersion   = 3
)

// Exception classes the failover policy branches on.
const (
	classNotLeader      = "OMNotLeaderException"
	classLeaderNotReady = "OMLeaderNotReadyException"
)

// Defaults of Options (ozone-default.xml).
const (
	// DefaultRetryWait is ozone.client.wait.between.retries.millis.
	DefaultRetryWait = 2 * time.Second
	// DefaultMaxFailovers is ozone.client.failover.max.attempts.
	DefaultMaxFailovers = 500
)

// Options configures a Client.
type Options struct {
	// Addresses are the OMs' RPC addresses in ozone.om.nodes.<serviceId> order.
	Addresses []string
	// RPC configures the Hadoop RPC connections (user, Kerberos).
	RPC hadooprpc.Options
	// RetryWait is the pause before each retry; DefaultRetryWait when zero.
	RetryWait time.Duration
	// MaxFailovers bounds the attempts after the first; DefaultMaxFailovers when zero.
	MaxFailovers int
}

// Client calls an OM or an OM HA group. It is safe for concurrent use.
type Client struct {
	opts     Options
	nodes    []*hadooprpc.Client
	clientID string
}

// New returns a client; it connects on the first call.
func New(o Options) (*Client, error) {
	if len(o.Addresses) == 0 {
		return nil, errors.New("om: option Addresses is empty: need at least one OM host:port")
	}
	if o.RetryWait <= 0 {
		o.RetryWait = DefaultRetryWait
	}
	if o.MaxFailovers <= 0 {
		o.MaxFailovers = DefaultMaxFailovers
	}
	nodes, err := hadooprpc.NewClients(o.Addresses, o.RPC)
	if err != nil {
		return nil, fmt.Errorf("om %w", err)
	}
	return &Client{opts: o, nodes: nodes, clientID: randomUUID()}, nil
}

// Close closes every connection.
func (c *Client) Close() error {
	hadooprpc.CloseAll(c.nodes)
	return nil
}

// CACertificates asks for the service list and returns the CA certificates in it as PEM, the
// way the Java client's ServiceInfoEx.provideCACerts picks them: the caCerts list, else the
// single caCertificate. Every one must parse as an X.509 certificate.
func (c *Client) CACertificates(ctx context.Context) ([]byte, error) {
	req := &ompb.OMRequest{CmdType: proto.Int32(typeServiceList), ClientId: proto.String(c.clientID),
		Version: proto.Uint32(clientVersion), TraceID: proto.String(""), ServiceListRequest: &ompb.ServiceListRequest{}}
	resp, addr, err := c.invoke(ctx, req)
	if err != nil {
		return nil, err
	}
	pems, err := CAFromResponse(resp)
	if err != nil {
		return nil, fmt.Errorf("om %s: service list: %w", addr, err)
	}
	return pems, nil
}

// CAFromResponse checks an OM reply to ServiceList and returns its CA certificates as PEM.
func CAFromResponse(resp *ompb.OMResponse) ([]byte, error) {
	if resp.GetStatus() != statusOK {
		return nil, fmt.Errorf("status %d: %s", resp.GetStatus(), resp.GetMessage())
	}
	sl := resp.GetServiceListResponse()
	list := sl.GetCaCerts()
	if len(list) == 0 {
		if sl.GetCaCertificate() == "" {
			return nil, errors.New("no CA certificate in the reply (is ozone.security.enabled true on the OM?)")
		}
		list = []string{sl.GetCaCertificate()}
	}
	var out []byte
	for i, p := range list {
		rest := []byte(p)
		for n := 0; ; n++ {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				if n == 0 {
					return nil, fmt.Errorf("CA certificate %d is not PEM", i+1)
				}
				break
			}
			if _, err := x509.ParseCertificate(b.Bytes); err != nil {
				return nil, fmt.Errorf("CA certificate %d: %w", i+1, err)
			}
			out = append(out, pem.EncodeToMemory(b)...)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the reply's CA certificate list is empty")
	}
	return out, nil
}

// invoke sends req with the OM client's failover policy: a follower's OMNotLeaderException and
// connection failures move to the next OM, OMLeaderNotReadyException retries the same one,
// anything else fails.
func (c *Client) invoke(ctx context.Context, req *ompb.OMRequest) (*ompb.OMResponse, string, error) {
	cur := 0
	var last error
	for attempt := 0; attempt <= c.opts.MaxFailovers; attempt++ {
		node := c.nodes[cur]
		resp := new(ompb.OMResponse)
		err := node.Call(ctx, Protocol, "submitRequest", req, resp)
		if err == nil {
			return resp, node.Addr(), nil
		}
		last = fmt.Errorf("om %s: %w", node.Addr(), err)
		var ce *hadooprpc.ConnError
		switch {
		case ctx.Err() != nil:
			return nil, "", last
		case hadooprpc.IsRemoteClass(err, classLeaderNotReady): // the same OM again
		case hadooprpc.IsRemoteClass(err, classNotLeader), errors.As(err, &ce) && !errors.Is(err, hadooprpc.ErrBadResponse) && !isAuthError(err):
			cur = (cur + 1) % len(c.nodes)
		default:
			return nil, "", last
		}
		t := time.NewTimer(c.opts.RetryWait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, "", fmt.Errorf("%w (gave up: %v)", last, ctx.Err())
		case <-t.C:
		}
	}
	return nil, "", fmt.Errorf("%w (after %d failovers)", last, c.opts.MaxFailovers)
}

// isAuthError reports a SASL exchange that failed for good (hadooprpc.AuthError).
func isAuthError(err error) bool {
	var ae *hadooprpc.AuthError
	return errors.As(err, &ae)
}

// randomUUID is the client id Java sends: a random UUID as text (ClientId.randomId().toString()).
func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
