package config

import "time"

// Key names the client reads. Upstream defaults come from apache/ozone
// hadoop-hdds/common/src/main/resources/ozone-default.xml and the Java classes cited
// next to each group; the facts are explained in docs/ozone-scm.md and docs/ozone-echo.md.

// SCM address keys (docs/ozone-scm.md#address-configuration; apache/ozone:
// hadoop-hdds/common/src/main/java/ org/apache/hadoop/hdds/scm/ScmConfigKeys.java).
const (
	KeySCMClientAddress     = "ozone.scm.client.address"
	KeySCMClientPort        = "ozone.scm.client.port"
	KeySCMNames             = "ozone.scm.names"
	KeySCMServiceIDs        = "ozone.scm.service.ids"
	KeySCMDefaultServiceID  = "ozone.scm.default.service.id"
	KeySCMNodesPrefix       = "ozone.scm.nodes."          // + serviceID
	KeySCMAddressPrefix     = "ozone.scm.address."        // + serviceID.nodeID
	KeySCMClientPortPrefix  = "ozone.scm.client.port."    // + serviceID.nodeID
	KeySCMClientAddrPrefix  = "ozone.scm.client.address." // + serviceID.nodeID (deprecated, port wins)
	DefaultSCMClientPort    = 9860
	KeySCMKerberosPrincipal = "hdds.scm.kerberos.principal"
	// DefaultSCMKerberosPrincipal is the ozone-default.xml value
	// (docs/hadoop-rpc.md#server-principal).
	DefaultSCMKerberosPrincipal = "SCM/_HOST@REALM"
)

// Security keys (docs/ozone-echo.md#tls, docs/ozone-scm.md#admin-checks).
const (
	KeySecurityEnabled       = "ozone.security.enabled"
	KeyHadoopAuthentication  = "hadoop.security.authentication"
	DefaultHadoopAuth        = "simple"
	KeyBlockTokenEnabled     = "hdds.block.token.enabled"
	KeyContainerTokenEnabled = "hdds.container.token.enabled"
	KeyGRPCTLSEnabled        = "hdds.grpc.tls.enabled"
	KeyGRPCTLSTestCert       = "hdds.grpc.tls.test.cert"
	KeyRPCProtection         = "hadoop.rpc.protection"
	DefaultRPCProtection     = "authentication"
)

// DataNode client keys (docs/ozone-echo.md#one-stream-per-request,
// docs/ozone-echo.md#member-order-and-address).
const (
	KeyClientReadTimeout = "ozone.client.read.timeout"
	// DefaultClientReadTimeout is the gRPC deadline of one Echo. XceiverClientGrpc reads the
	// key in whole seconds (apache/ozone: hadoop-hdds/client/src/main/java/org/apache/hadoop/
	// hdds/scm/XceiverClientGrpc.java), so "1500ms" means 1 s there and here.
	DefaultClientReadTimeout    = 30 * time.Second
	KeyUseDatanodeHostname      = "hdds.datanode.use.datanode.hostname"
	KeyTopologyAwareRead        = "ozone.network.topology.aware.read"
	DefaultTopologyAwareRead    = true
	KeyContainerIPCPort         = "hdds.container.ipc.port"
	DefaultContainerIPCPort     = 9859
	keySCMClientRetryPrefix     = "hdds.scmclient."
	KeySCMClientRPCTimeout      = keySCMClientRetryPrefix + "rpc.timeout"
	KeySCMClientFailoverMax     = keySCMClientRetryPrefix + "failover.max.retry"
	KeySCMClientRetryInterval   = keySCMClientRetryPrefix + "failover.retry.interval"
	KeySCMClientMaxRetryTimeout = keySCMClientRetryPrefix + "max.retry.timeout"
)

// KeyIPCConnectTimeout is ipc.client.connect.timeout: Hadoop's TCP connect timeout, in
// milliseconds, which Ozone's SCM client takes from core-site (docs/hadoop-rpc.md#pings-and-timeouts).
const (
	KeyIPCConnectTimeout     = "ipc.client.connect.timeout"
	DefaultIPCConnectTimeout = 20 * time.Second
)

// SCM client retry defaults (docs/ozone-scm.md#retry-timing). A bare number in these keys is read
// as milliseconds, the unit of the upstream ScmClientConfig fields.
const (
	DefaultSCMClientRPCTimeout    = 15 * time.Minute
	DefaultSCMClientFailoverMax   = 15
	DefaultSCMClientRetryInterval = 2 * time.Second
	DefaultSCMClientMaxRetryTime  = 10 * time.Minute
)

// freon's HTTP server, which `ozone freon --server` starts (apache/ozone:
// hadoop-hdds/common/src/main/java/org/apache/hadoop/ozone/OzoneConfigKeys.java and
// ozone-default.xml): the address, and a bind host that replaces the address's host when set.
const (
	KeyFreonHTTPAddress      = "ozone.freon.http-address"
	KeyFreonHTTPBindHost     = "ozone.freon.http-bind-host"
	DefaultFreonHTTPBindHost = "0.0.0.0"
	DefaultFreonHTTPPort     = 9884
)
