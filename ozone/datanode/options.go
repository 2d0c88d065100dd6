package datanode

import (
	"fmt"
	"time"
)

// Defaults of the Java client (docs/ozone-echo.md#java-client).
const (
	// DefaultTimeout is ozone.client.read.timeout, sent as grpc-timeout.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxMessageSize is the 32 MiB message limit of client and DataNode.
	DefaultMaxMessageSize = 32 << 20
	// DefaultPort is hdds.container.ipc.port, used when a member's
	// STANDALONE port is 0.
	DefaultPort = 9859
	// DefaultMaxOutstanding is hdds.ratis.raft.client.async.outstanding-requests.max,
	// the Java client's limit of calls in flight per client object.
	DefaultMaxOutstanding = 32
)

// Target says which pipeline member(s) a call goes to.
type Target string

const (
	// TargetFirst sends to the first member in Java's order and retries on
	// the others (the Java client's behaviour). The empty Target means this.
	TargetFirst Target = "first"
	// TargetAll spreads calls round-robin over every member, without retry.
	TargetAll Target = "all"
)

// Any other Target value selects one DataNode by UUID, host name, IP address
// or "address:port"; it must match exactly one member.

// StreamMode says how calls use gRPC streams.
type StreamMode string

const (
	// StreamPerRequest opens a new stream for every request and half-closes
	// it after the request, as the Java client does. The empty StreamMode
	// means this.
	StreamPerRequest StreamMode = "per-request"
	// StreamReused keeps long-lived streams per DataNode and sends request
	// after request on them. Each concurrent call borrows its own stream
	// from a small per-DataNode pool (requests on one stream are serialised,
	// never interleaved), so N concurrent callers use N streams and a single
	// caller always reuses the same one. The per-call deadline is enforced
	// by cancelling the stream, which is then discarded.
	StreamReused StreamMode = "reused"
)

// TLSOptions turns on TLS to the DataNodes (hdds.grpc.tls.enabled with
// ozone.security.enabled). There is no client certificate: Ozone has no
// mutual TLS on this port (docs/ozone-echo.md#tls).
type TLSOptions struct {
	// CAFiles are PEM files with the CA certificates to trust (the SCM
	// root/sub-CA certificates).
	CAFiles []string
	// CAPEM holds further PEM CA certificates.
	CAPEM []byte
	// TestCert verifies the DataNode certificate against "localhost"
	// instead of the member's IP, like hdds.grpc.tls.test.cert = true.
	TestCert bool
}

// Options configures a Client. The zero value is the Java client's behaviour.
type Options struct {
	// Target: TargetFirst (default), TargetAll, or one DataNode.
	Target Target
	// Streams: StreamPerRequest (default) or StreamReused.
	Streams StreamMode
	// NoRetry stops after the first failed attempt instead of trying the
	// other members (only TargetFirst retries at all).
	NoRetry bool
	// Timeout is the deadline of one attempt; default DefaultTimeout.
	Timeout time.Duration
	// MaxMessageSize limits sent and received messages; default
	// DefaultMaxMessageSize.
	MaxMessageSize int
	// UseHostname dials members by hostName instead of ipAddress, like
	// hdds.datanode.use.datanode.hostname = true.
	UseHostname bool
	// DefaultPort replaces a STANDALONE port of 0; default DefaultPort.
	DefaultPort int
	// MaxOutstanding limits calls in flight on this Client; further calls
	// wait. Default DefaultMaxOutstanding; negative means no limit.
	MaxOutstanding int
	// MaxIdleStreams is how many idle streams StreamReused keeps per
	// DataNode; default MaxOutstanding (or 32 when that is unlimited).
	MaxIdleStreams int
	// TLS enables TLS when not nil.
	TLS *TLSOptions
	// Conns, when not nil, hears of every connection the client opens and closes (Dialer).
	Conns ConnWatcher
	// Transport: TransportGRPC (default) or TransportH2.
	Transport Transport
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Target == "" {
		o.Target = TargetFirst
	}
	switch o.Streams {
	case "":
		o.Streams = StreamPerRequest
	case StreamPerRequest, StreamReused:
	default:
		return o, fmt.Errorf("datanode: option Streams %q: want %q or %q", o.Streams, StreamPerRequest, StreamReused)
	}
	switch o.Transport {
	case "":
		o.Transport = TransportGRPC
	case TransportGRPC, TransportH2:
	default:
		return o, fmt.Errorf("datanode: option Transport %q: want %q or %q", o.Transport, TransportGRPC, TransportH2)
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = DefaultTimeout
	case o.Timeout < 0:
		return o, fmt.Errorf("datanode: option Timeout %v must be > 0", o.Timeout)
	}
	switch {
	case o.MaxMessageSize == 0:
		o.MaxMessageSize = DefaultMaxMessageSize
	case o.MaxMessageSize < 0:
		return o, fmt.Errorf("datanode: option MaxMessageSize %d must be > 0", o.MaxMessageSize)
	}
	switch {
	case o.DefaultPort == 0:
		o.DefaultPort = DefaultPort
	case o.DefaultPort < 0 || o.DefaultPort > 65535:
		return o, fmt.Errorf("datanode: option DefaultPort %d must be within 1..65535", o.DefaultPort)
	}
	if o.MaxOutstanding == 0 {
		o.MaxOutstanding = DefaultMaxOutstanding
	}
	switch {
	case o.MaxIdleStreams < 0:
		return o, fmt.Errorf("datanode: option MaxIdleStreams %d must be >= 0", o.MaxIdleStreams)
	case o.MaxIdleStreams == 0 && o.MaxOutstanding > 0:
		o.MaxIdleStreams = o.MaxOutstanding
	case o.MaxIdleStreams == 0:
		o.MaxIdleStreams = DefaultMaxOutstanding
	}
	if o.TLS != nil && len(o.TLS.CAFiles) == 0 && len(o.TLS.CAPEM) == 0 {
		return o, fmt.Errorf("datanode: option TLS needs CAFiles or CAPEM")
	}
	return o, nil
}
