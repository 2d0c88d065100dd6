package ratis

import (
	"fmt"
	"time"

	"github.com/dnecho/dnecho/ozone/datanode"
)

// Defaults of the Java client inside Ozone 2.2.0 (docs/ozone-ratis.md#client-retry-defaults;
// Ozone: hadoop-hdds/common/src/main/java/org/apache/hadoop/hdds/ratis/conf/RatisClientConfig.java).
const (
	// DefaultRequestTimeout is hdds.ratis.raft.client.rpc.request.timeout: a request without a
	// reply by then fails locally and is retried.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxOutstanding is hdds.ratis.raft.client.async.outstanding-requests.max: requests
	// of one client in flight at once (the initial watch takes one).
	DefaultMaxOutstanding = 32
	// DefaultMaxMessageSize is the Java client's receive limit (raft.grpc.message.size.max).
	DefaultMaxMessageSize = 64 << 20
	// MaxRequestSize is what a DataNode's Ratis port receives at most: max(32 MiB chunk limit,
	// 32 MB appender buffer) + 1 MiB (Ozone: RatisConfUtils.java).
	MaxRequestSize = 32<<20 + 1<<20
	// FlowControlWindow is hdds.ratis.raft.grpc.flow.control.window, the HTTP/2 window of both
	// sides.
	FlowControlWindow = 5 << 20
	// DefaultCloseTimeout is how long the Java client waits for the server to end a stream it
	// half-closed before it cancels it (Ratis: ratis-grpc/src/main/java/org/apache/ratis/grpc/
	// GrpcUtil.java, shutdownManagedChannel: awaitTermination(3, SECONDS), then shutdownNow).
	DefaultCloseTimeout = 3 * time.Second
)

// Options configures a Client. The zero value is the Java client inside Ozone 2.2.0.
type Options struct {
	// UseHostname dials members by hostName instead of IP (hdds.datanode.use.datanode.hostname).
	UseHostname bool
	// TLS turns TLS on for the RATIS port (no client certificate; the server name checked is
	// the member's IP, without the test-cert override the gRPC path has).
	TLS *datanode.TLSOptions
	// RequestTimeout bounds each attempt; default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxOutstanding limits requests in flight; default DefaultMaxOutstanding.
	MaxOutstanding int
	// MaxMessageSize is the receive limit; default DefaultMaxMessageSize.
	MaxMessageSize int
	// Retry is the retry policy; nil means DefaultRetryPolicy.
	Retry *RetryPolicy
	// CloseTimeout bounds the wait for the server's end of a stream the client half-closed (on
	// Close, and when it gives a stream up to resend elsewhere); then the stream is cancelled.
	// Default DefaultCloseTimeout.
	CloseTimeout time.Duration
	// ClientID is the Raft client id; zero means a random (version 4) UUID, as Java makes.
	ClientID [16]byte
	// Conns, when not nil, hears of every connection the client opens and closes
	// (datanode.Dialer); the DataNode it names has the RATIS address.
	Conns datanode.ConnWatcher
}

func (o Options) withDefaults() (Options, error) {
	switch {
	case o.RequestTimeout < 0:
		return o, fmt.Errorf("ratis: option RequestTimeout %s must be > 0", o.RequestTimeout)
	case o.MaxOutstanding < 0:
		return o, fmt.Errorf("ratis: option MaxOutstanding %d must be > 0", o.MaxOutstanding)
	case o.MaxMessageSize < 0:
		return o, fmt.Errorf("ratis: option MaxMessageSize %d must be > 0", o.MaxMessageSize)
	case o.CloseTimeout < 0:
		return o, fmt.Errorf("ratis: option CloseTimeout %s must be > 0", o.CloseTimeout)
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.MaxOutstanding == 0 {
		o.MaxOutstanding = DefaultMaxOutstanding
	}
	if o.CloseTimeout == 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	if o.MaxMessageSize == 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.Retry == nil {
		o.Retry = DefaultRetryPolicy()
	}
	return o, nil
}
