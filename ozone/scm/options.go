package scm

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// Protocol is the container-location protocol name, sent in the connection
// context and every request header (docs/ozone-scm.md#endpoints).
const Protocol = "org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol"

// ClientVersion is the wrapper's version field: 3 (BUCKET_LAYOUT_SUPPORT).
// Below 2 the SCM refuses replies that contain EC containers
// (docs/ozone-scm.md#what-the-java-client-sends).
const ClientVersion = 3

// DefaultPort is ozone.scm.client.port.
const DefaultPort = 9860

// Retry defaults of Ozone's SCM client (docs/ozone-scm.md#retry-timing, keys hdds.scmclient.*).
const (
	// DefaultRetryInterval is failover.retry.interval: the pause before every retry.
	DefaultRetryInterval = 2 * time.Second
	// DefaultMaxRetries is max(failover.max.retry = 15,
	// max.retry.timeout (10m) / failover.retry.interval) = 300 retries after the first attempt.
	DefaultMaxRetries = 300
	// DefaultRPCTimeout is rpc.timeout: the bound on a single attempt.
	DefaultRPCTimeout = 15 * time.Minute
	// NoRetries, as MaxRetries, makes every call a single attempt.
	NoRetries = -1
)

// Options configures a Client. Zero fields take the defaults above.
type Options struct {
	// Addresses are the SCMs' client addresses ("host:port"), in the order
	// of ozone.scm.nodes.<serviceId>; one entry for a non-HA cluster.
	Addresses []string
	// RPC configures the Hadoop RPC connections (user, timeouts, SASL).
	RPC hadooprpc.Options
	// RetryInterval is the pause before each retry.
	RetryInterval time.Duration
	// MaxRetries is how many retries follow a failed first attempt;
	// NoRetries for none.
	MaxRetries int
	// RPCTimeout bounds each attempt.
	RPCTimeout time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if len(o.Addresses) == 0 {
		return o, errors.New("scm: option Addresses is empty: need at least one SCM host:port")
	}
	for _, a := range o.Addresses {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return o, fmt.Errorf("scm: option Addresses: %q is not host:port: %v", a, err)
		}
	}
	switch {
	case o.RetryInterval < 0:
		return o, fmt.Errorf("scm: option RetryInterval = %v: must be >= 0 (0 = %v)", o.RetryInterval, DefaultRetryInterval)
	case o.MaxRetries < NoRetries:
		return o, fmt.Errorf("scm: option MaxRetries = %d: must be >= 0, or NoRetries (-1)", o.MaxRetries)
	case o.RPCTimeout < 0:
		return o, fmt.Errorf("scm: option RPCTimeout = %v: must be >= 0 (0 = %v)", o.RPCTimeout, DefaultRPCTimeout)
	}
	if o.RetryInterval == 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	switch o.MaxRetries {
	case 0:
		o.MaxRetries = DefaultMaxRetries
	case NoRetries:
		o.MaxRetries = 0
	}
	if o.RPCTimeout == 0 {
		o.RPCTimeout = DefaultRPCTimeout
	}
	if o.RPC.User == "" {
		o.RPC.User = hadooprpc.DefaultUser()
	}
	return o, nil
}
