package datanode

import (
	"crypto/tls"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
)

// Transport says which client carries a Client's gRPC calls. Both put the same request bytes on
// the wire and report outcomes alike (docs/h2-transport.md says where they differ).
type Transport string

const (
	// TransportGRPC is grpc-go. The empty Transport means this.
	TransportGRPC Transport = "grpc"
	// TransportH2 is package h2, an HTTP/2 client made for the Echo exchange: one reader and one
	// writer goroutine per connection, nothing allocated per call.
	TransportH2 Transport = "h2"
)

// Transports lists the valid Transport values.
var Transports = []Transport{TransportGRPC, TransportH2}

// newMember makes node's channel for the Client's transport.
func (c *Client) newMember(node DataNode, creds credentials.TransportCredentials, tlsConf *tls.Config) (*member, error) {
	mb := &member{node: node}
	if c.opts.Transport == TransportH2 {
		ch, err := h2.NewChannel(h2Config(c.opts, node, tlsConf))
		if err != nil {
			return nil, fmt.Errorf("datanode %s (%s): %w", node.UUID, node.Addr, err)
		}
		mb.h2 = ch
		if c.opts.Streams == StreamReused {
			mb.h2s = newH2Pool(c, mb)
		}
		return mb, nil
	}
	conn, err := grpc.NewClient("passthrough:///"+node.Addr, dialOptions(c.opts, creds, node)...)
	if err != nil {
		return nil, fmt.Errorf("datanode %s (%s): %w", node.UUID, node.Addr, err)
	}
	mb.conn = conn
	if c.opts.Streams == StreamReused {
		mb.pool = newStreamPool(c, mb)
	}
	return mb, nil
}

// h2Config is node's h2 channel: the authority, TLS server name and dialer grpc-go would use.
func h2Config(opts Options, node DataNode, tlsConf *tls.Config) h2.Config {
	cfg := h2.Config{
		Addr:           node.Addr,
		Path:           sendMethod,
		Timeout:        opts.Timeout,
		MaxRecvMsgSize: opts.MaxMessageSize,
	}
	if opts.TLS != nil && opts.TLS.TestCert {
		cfg.Authority = "localhost" // as dialOptions overrides it
	}
	if tlsConf != nil {
		cfg.TLS = tlsConf.Clone()
		host := cfg.Authority
		if host == "" {
			host, _, _ = net.SplitHostPort(node.Addr)
		}
		cfg.TLS.ServerName = host
	}
	if opts.Conns != nil {
		cfg.Dial = Dialer(node, opts.Conns)
	}
	return cfg
}

// close ends the member's streams and channel.
func (m *member) close() {
	if m.pool != nil {
		m.pool.close()
	}
	if m.h2s != nil {
		m.h2s.close()
	}
	if m.h2 != nil {
		_ = m.h2.Close()
	}
	if m.conn != nil {
		_ = m.conn.Close() // only fails if already closed
	}
}
