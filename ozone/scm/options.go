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
	// DefaultRPCTimeout is rpc.timeout: how long an attempt may hear nothing from its SCM.
	DefaultRPCTimeout = 15 * time.Minute
	// NoRetries, as MaxRetries, makes every call a single attempt.
	NoRetries = -1
)

// Options configures a Client. Zero fields take the defaults above.
type Options struct {
	// Addresses are the SCMs' client addresses ("host:port"), in the order
	// of ozone.scm.nodes.<serviceId>; one entry for a non-HA cluster.
	Addresses []string
	// NodeIDs name the SCMs of Addresses in messages (the node ids of
	// ozone.scm.nodes.<serviceId>, in the same order); empty without them.
	NodeIDs []string
	// RPC configures the Hadoop RPC connections (user, timeouts, SASL).
	RPC hadooprpc.Options
	// RetryInterval is the pause before each retry.
	RetryInterval time.Duration
	// MaxRetries is how many retries follow a failed first attempt;
	// NoRetries for none.
	MaxRetries int
	// RPCTimeout bounds how long an attempt may hear nothing from its SCM,
	// connecting included: then it fails and the client moves on to the next
	// SCM at once. An answer that keeps arriving is not cut. Each time an SCM
	// stays silent this long, its next attempt may take twice as long, so a
	// slow but live SCM is waited for in a later round
	// (docs/ozone-scm.md#a-silent-scm).
	RPCTimeout time.Duration
	// OnRetry, when set, hears each failed attempt that another follows,
	// before the pause; it must not block.
	OnRetry func(Retry)
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
	case len(o.NodeIDs) != 0 && len(o.NodeIDs) != len(o.Addresses):
		return o, fmt.Errorf("scm: option NodeIDs has %d ids for %d Addresses: give one per address, or none", len(o.NodeIDs), len(o.Addresses))
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
