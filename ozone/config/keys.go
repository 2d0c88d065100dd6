package config

import "time"

// Key names the client reads. Upstream defaults come from apache/ozone
// hadoop-hdds/common/src/main/resources/ozone-default.xml and the Java classes cited
// next to each group; the spec sections are shared/spec/ozone-scm.md and ozone-echo.md.

// SCM address keys (ozone-scm.md §14.1; apache/ozone: hadoop-hdds/common/src/main/java/
// org/apache/hadoop/hdds/scm/ScmConfigKeys.java).
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
	// DefaultSCMKerberosPrincipal is the ozone-default.xml value (ozone-scm.md §10.5).
	DefaultSCMKerberosPrincipal = "SCM/_HOST@REALM"
)

// Security keys (ozone-echo.md §5, ozone-scm.md §13).
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

// DataNode client keys (ozone-echo.md §3.2, §3.3).
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

// SCM client retry defaults (ozone-scm.md §14.5). A bare number in these keys is read as
// milliseconds, the unit of the upstream ScmClientConfig fields.
const (
	DefaultSCMClientRPCTimeout    = 15 * time.Minute
	DefaultSCMClientFailoverMax   = 15
	DefaultSCMClientRetryInterval = 2 * time.Second
	DefaultSCMClientMaxRetryTime  = 10 * time.Minute
)
