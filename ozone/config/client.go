package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ClientSettings are the derived settings an Ozone Echo client needs besides the SCM
// addresses. Every field's default is the upstream default named in keys.go.
type ClientSettings struct {
	// SecurityEnabled is ozone.security.enabled: it gates gRPC TLS and makes freon fetch CA
	// certificates from the OM.
	SecurityEnabled bool
	// Kerberos is hadoop.security.authentication = kerberos (core-site): Hadoop RPC to SCM
	// then authenticates with SASL GSSAPI.
	Kerberos bool
	// BlockTokenEnabled and ContainerTokenEnabled are hdds.block.token.enabled and
	// hdds.container.token.enabled. With the container key set, freon asks SCM for a
	// container token and sends it with every Echo (docs/ozone-echo.md#steps-of-a-run).
	BlockTokenEnabled     bool
	ContainerTokenEnabled bool
	// GRPCTLS is hdds.grpc.tls.enabled AND ozone.security.enabled: TLS to DataNodes needs both.
	GRPCTLS bool
	// GRPCTLSTestCert is hdds.grpc.tls.test.cert: verify the DataNode certificate against
	// "localhost" instead of the DataNode's IP address.
	GRPCTLSTestCert bool
	// ReadTimeout is ozone.client.read.timeout, the deadline of one Echo, in whole seconds.
	ReadTimeout time.Duration
	// UseDatanodeHostname is hdds.datanode.use.datanode.hostname: dial the DataNode's host
	// name instead of its IP address.
	UseDatanodeHostname bool
	// TopologyAwareRead is ozone.network.topology.aware.read: keep the pipeline's member
	// order (true) or shuffle it (false).
	TopologyAwareRead bool
	// ContainerIPCPort is hdds.container.ipc.port, used when a DataNode advertises port 0.
	ContainerIPCPort int
	// SCM client retry policy (hdds.scmclient.*, docs/ozone-scm.md#retry-timing).
	// SCMRPCTimeoutSet says whether the configuration sets hdds.scmclient.rpc.timeout (a
	// client that departs from its default may want to know).
	SCMRPCTimeout            time.Duration
	SCMRPCTimeoutSet         bool
	SCMFailoverMaxRetry      int
	SCMFailoverRetryInterval time.Duration
	SCMMaxRetryTimeout       time.Duration
	// IPCConnectTimeout is ipc.client.connect.timeout: how long a TCP connect may take.
	IPCConnectTimeout time.Duration
	// SCMKerberosPrincipal is hdds.scm.kerberos.principal, possibly with _HOST;
	// SCMKerberosPrincipalPattern its ".pattern" key, which replaces the comparison with a glob.
	SCMKerberosPrincipal        string
	SCMKerberosPrincipalPattern string
	// OMKerberosPrincipal and OMKerberosPrincipalPattern are the same for the Ozone Manager.
	OMKerberosPrincipal        string
	OMKerberosPrincipalPattern string
	// OMRetryWait and OMMaxFailovers are the OM client's retry policy.
	OMRetryWait    time.Duration
	OMMaxFailovers int
	// Ratis are the hdds.ratis.* client settings the configuration sets (the Ratis path).
	Ratis RatisClient
	// RPCProtection is hadoop.rpc.protection as lower-case QOP names (authentication,
	// integrity, privacy), in configured order.
	RPCProtection []string
	// Warnings lists values that were not understood and replaced by their default, which
	// Hadoop also only logs (for example a boolean written "yes").
	Warnings []string
}

// SCMRetryLimit is the number of SCM attempts before giving up: max(failover.max.retry,
// max.retry.timeout / failover.retry.interval) (docs/ozone-scm.md#retry-timing).
func (s ClientSettings) SCMRetryLimit() int {
	limit := s.SCMFailoverMaxRetry
	if s.SCMFailoverRetryInterval > 0 {
		if n := int(s.SCMMaxRetryTimeout / s.SCMFailoverRetryInterval); n > limit {
			limit = n
		}
	}
	return limit
}

// ClientSettings derives the client settings. Unparsable numbers and durations are errors
// naming the key; unparsable booleans fall back to their default with a warning, as in Hadoop.
func (c *Config) ClientSettings() (ClientSettings, error) {
	r := settingsReader{c: c}
	s := ClientSettings{
		SecurityEnabled:       r.bool(KeySecurityEnabled, false),
		Kerberos:              r.kerberos(),
		BlockTokenEnabled:     r.bool(KeyBlockTokenEnabled, false),
		ContainerTokenEnabled: r.bool(KeyContainerTokenEnabled, false),
		GRPCTLSTestCert:       r.bool(KeyGRPCTLSTestCert, false),
		UseDatanodeHostname:   r.bool(KeyUseDatanodeHostname, false),
		TopologyAwareRead:     r.bool(KeyTopologyAwareRead, DefaultTopologyAwareRead),
		ReadTimeout:           r.duration(KeyClientReadTimeout, DefaultClientReadTimeout, time.Second, mustBePositive),
		ContainerIPCPort:      r.port(KeyContainerIPCPort, DefaultContainerIPCPort),

		SCMRPCTimeout:            r.duration(KeySCMClientRPCTimeout, DefaultSCMClientRPCTimeout, time.Millisecond, mustBePositive),
		SCMFailoverMaxRetry:      r.int(KeySCMClientFailoverMax, DefaultSCMClientFailoverMax),
		SCMFailoverRetryInterval: r.duration(KeySCMClientRetryInterval, DefaultSCMClientRetryInterval, time.Millisecond, mayBeZero),
		SCMMaxRetryTimeout:       r.duration(KeySCMClientMaxRetryTimeout, DefaultSCMClientMaxRetryTime, time.Millisecond, mayBeZero),
		IPCConnectTimeout:        r.duration(KeyIPCConnectTimeout, DefaultIPCConnectTimeout, time.Millisecond, mustBePositive),
		SCMKerberosPrincipal:     c.GetTrimmed(KeySCMKerberosPrincipal, DefaultSCMKerberosPrincipal),

		SCMKerberosPrincipalPattern: c.GetTrimmed(KeySCMKerberosPrincipal+PrincipalPatternSuffix, ""),
		OMKerberosPrincipal:         c.GetTrimmed(KeyOMKerberosPrincipal, DefaultOMKerberosPrincipal),
		OMKerberosPrincipalPattern:  c.GetTrimmed(KeyOMKerberosPrincipal+PrincipalPatternSuffix, ""),
		OMRetryWait:                 r.duration(KeyOMClientRetryWait, DefaultOMClientRetryWait*time.Millisecond, time.Millisecond, mayBeZero),
		OMMaxFailovers:              r.int(KeyOMClientMaxFailovers, DefaultOMClientMaxFailovers),
	}
	_, s.SCMRPCTimeoutSet = c.Lookup(KeySCMClientRPCTimeout)
	tls := r.bool(KeyGRPCTLSEnabled, false)
	s.GRPCTLS = s.SecurityEnabled && tls
	s.RPCProtection = r.protection()
	s.Ratis = c.ratisClient()
	s.Warnings = r.warnings
	if err := errors.Join(r.errs...); err != nil {
		return ClientSettings{}, err
	}
	return s, nil
}

// settingsReader collects errors and warnings so one call reports every bad key at once.
type settingsReader struct {
	c        *Config
	errs     []error
	warnings []string
}

func (r *settingsReader) bool(key string, def bool) bool {
	v, err := r.c.GetBool(key, def)
	if err != nil {
		r.warnings = append(r.warnings, err.Error())
	}
	return v
}

// int reads a count: a retry or failover limit, never negative.
func (r *settingsReader) int(key string, def int) int {
	v, err := r.c.GetInt(key, def)
	if err == nil && v < 0 {
		err = fmt.Errorf("config: %s: %d: must be 0 or more", key, v)
	}
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}

// port reads a port number; 0 means none.
func (r *settingsReader) port(key string, def int) int {
	v, err := r.c.GetInt(key, def)
	if err == nil && (v < 0 || v > 65535) {
		err = fmt.Errorf("config: %s: %d: not a port (0 to 65535)", key, v)
	}
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}

// Sign rules of durations: a timeout must be positive, a pause may be zero.
const (
	mustBePositive = true
	mayBeZero      = false
)

func (r *settingsReader) duration(key string, def, unit time.Duration, positive bool) time.Duration {
	v, err := r.c.GetDuration(key, def, unit)
	switch {
	case err != nil:
	case positive && v <= 0:
		err = fmt.Errorf("config: %s: %s: a timeout must be at least %s", key, r.c.GetTrimmed(key, ""), unit)
	case v < 0:
		err = fmt.Errorf("config: %s: %s: must be 0 or more", key, r.c.GetTrimmed(key, ""))
	}
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}

// kerberos reads hadoop.security.authentication: simple or kerberos. Hadoop refuses other values
// at start-up; taking a typo for simple would send unauthenticated calls to a secure cluster.
func (r *settingsReader) kerberos() bool {
	v := r.c.GetTrimmed(KeyHadoopAuthentication, DefaultHadoopAuth)
	switch strings.ToLower(v) {
	case "kerberos":
		return true
	case "simple":
		return false
	}
	r.errs = append(r.errs, fmt.Errorf("config: %s: %q is not simple or kerberos", KeyHadoopAuthentication, v))
	return false
}

// protection validates hadoop.rpc.protection; Hadoop rejects unknown names at start-up.
func (r *settingsReader) protection() []string {
	vals := r.c.GetStrings(KeyRPCProtection)
	if len(vals) == 0 {
		return []string{DefaultRPCProtection}
	}
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		l := strings.ToLower(v)
		switch l {
		case "authentication", "integrity", "privacy":
			out = append(out, l)
		default:
			r.errs = append(r.errs, fmt.Errorf("config: %s: %q is not authentication, integrity or privacy", KeyRPCProtection, v))
		}
	}
	return out
}
