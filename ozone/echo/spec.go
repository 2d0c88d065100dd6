package echo

import (
	"slices"
	"time"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/scm"
)

// Defaults and limits of a Spec. A zero field takes the default named beside it.
const (
	// DefaultLookupTimeout bounds the SCM lookup. Ozone's Java client would keep retrying an
	// unreachable SCM for up to 10 minutes (hdds.scmclient.max.retry.timeout); a measuring tool
	// should say what is wrong sooner.
	DefaultLookupTimeout = 60 * time.Second
	// DefaultSCMAttemptTimeout is how long one SCM may stay silent during a lookup, connecting
	// included, before the next SCM is asked, when hdds.scmclient.rpc.timeout is not set (and
	// never more than a quarter of LookupTimeout). Ozone's own default, 15 minutes, lets one hung
	// SCM of an HA service take the whole lookup (docs/ozone-scm.md#a-silent-scm).
	DefaultSCMAttemptTimeout = 5 * time.Second
	// DefaultClients is freon's --clients: one client object (one connection per DataNode).
	DefaultClients = 1
	// MaxClients bounds Clients: each client dials every pipeline member.
	MaxClients = 1024
	// DefaultReresolveAfter is how long every call must have failed with UNAVAILABLE before the
	// session looks the container up again, and the least time between two such lookups.
	DefaultReresolveAfter = 10 * time.Second
	// MaxResponseBytes is freon's cap on the response payload: DNRPCLoadGenerator compares bytes
	// with its MAX_SIZE_KB constant, so a response is at most 2,097,151 bytes (2 MiB − 1).
	// Ozone: hadoop-ozone/freon/src/main/java/org/apache/hadoop/ozone/freon/DNRPCLoadGenerator.java
	MaxResponseBytes = 2097151
	// MaxRequestBytes is the largest request payload: the DataNode's gRPC port accepts messages of
	// at most 32 MiB (Ozone: OzoneConsts.OZONE_SCM_CHUNK_MAX_SIZE, the maxInboundMessageSize of
	// XceiverServerGrpc and XceiverClientGrpc).
	MaxRequestBytes = datanode.DefaultMaxMessageSize
)

// Token modes of Spec.Token besides a literal encoded token.
const (
	// TokenAuto fetches a container token from SCM when hdds.container.token.enabled is true in
	// the client configuration (what freon does) and sends none otherwise. "" means this.
	TokenAuto = "auto"
	// TokenNone sends no token.
	TokenNone = "none"
)

// Target values besides one DataNode's uuid, host or address.
const (
	// TargetFirst is the Java client: the first pipeline member, the others on failure.
	TargetFirst = string(datanode.TargetFirst)
	// TargetAll spreads calls round-robin over every member, without retries.
	TargetAll = string(datanode.TargetAll)
)

// Stream says how calls use gRPC streams.
type Stream string

// Stream modes.
const (
	// StreamNew opens a stream per request, as the Java client does. "" means this.
	StreamNew Stream = "new"
	// StreamReuse keeps long-lived streams: it measures the DataNode rather than stream set-up.
	StreamReuse Stream = "reuse"
)

// Lookup selects the SCM calls that find the container's pipeline.
type Lookup string

// Lookup modes.
const (
	// LookupFreon is freon's GetContainer + ListPipelines. "" means this.
	LookupFreon Lookup = "freon"
	// LookupSingle is one GetContainerWithPipeline call.
	LookupSingle Lookup = "single"
)

// Transport is how an Echo reaches the DataNode.
type Transport string

// Transports (docs/ozone-ratis.md#read-versus-write compares them).
const (
	// TransportGRPC sends Echo to the DataNode's Xceiver gRPC port (freon without --ratis),
	// always read-only. "" means this.
	TransportGRPC Transport = "grpc"
	// TransportRatis sends Echo through the pipeline's Raft group (freon --ratis): a Raft read
	// served by the leader when Request.ReadOnly, else a Raft write logged, replicated and
	// applied on every replica.
	TransportRatis Transport = "ratis"
)

// GRPCClient is the client that carries the gRPC transport's calls; both send the same bytes
// and report the same outcomes (docs/h2-transport.md). The front ends call it --transport and
// transport.
type GRPCClient string

// gRPC clients.
const (
	// GRPCClientGRPC is grpc-go. "" means this.
	GRPCClientGRPC GRPCClient = "grpc"
	// GRPCClientH2 is dnecho's own HTTP/2 client for the Echo exchange (ozone/datanode/h2).
	GRPCClientH2 GRPCClient = "h2"
)

// Mode is what one Echo measures: the transport, and for Ratis whether it is a read or a write.
type Mode string

// Modes, the values of the metrics' mode tag.
const (
	ModeGRPC       Mode = "grpc"
	ModeRatisRead  Mode = "ratis-read"
	ModeRatisWrite Mode = "ratis-write"
)

// Transport is the transport a call of the mode goes by.
func (m Mode) Transport() Transport {
	if m == ModeGRPC {
		return TransportGRPC
	}
	return TransportRatis
}

// Cluster says where the cluster is: SCM addresses, or a configuration directory, or both.
type Cluster struct {
	// SCM lists SCM client addresses ("host:port", port 9860 when omitted). When set, the
	// configuration's SCM keys are not consulted.
	SCM []string
	// ConfDir holds ozone-site.xml; "" means $OZONE_CONF_DIR (when set).
	ConfDir string
	// Overrides are "key=value" settings applied over the configuration (-D).
	Overrides []string
	// User is the Hadoop RPC user; "" means $HADOOP_USER_NAME or the OS user. With Kerberos the
	// user is the authenticated principal and User must be empty.
	User string
	// Principal and Keytab log in to Kerberos from a keytab (kinit -kt), when the configuration
	// says hadoop.security.authentication=kerberos; without a Keytab the ticket cache of a kinit
	// is used ($KRB5CCNAME, else /tmp/krb5cc_<uid>), and Principal, if set, must be its owner.
	// $KRB5_CONFIG names the Kerberos configuration (default /etc/krb5.conf).
	Principal string
	Keytab    string
}

// IsSet reports whether c names a cluster (without $OZONE_CONF_DIR).
func (c Cluster) IsSet() bool { return len(c.SCM) > 0 || c.ConfDir != "" }

// Request is what one Echo asks of the DataNode. Sizes are in bytes.
type Request struct {
	// PayloadReq is the size of the request payload (freon's bytes, which the DataNode ignores).
	PayloadReq int64
	// PayloadResp is the size of the payload the DataNode returns, capped at MaxResponseBytes
	// like freon unless Uncapped.
	PayloadResp int64
	// Uncapped sends PayloadResp in full (up to the int32 wire field), to measure the DataNode's
	// error path above its message limit.
	Uncapped bool
	// SleepMs makes the DataNode wait before answering.
	SleepMs int32
	// ReadOnly marks the Echo read-only. Over gRPC the session always sends true, as freon
	// forces it without --ratis; over Ratis it makes the Echo a Raft read instead of a write.
	ReadOnly bool
}

// Spec holds every option of an echo workload. The zero value of each optional field is its
// documented default; Validate checks a Spec and Set parses a field's string form.
type Spec struct {
	Cluster Cluster
	// ContainerID is the container whose pipeline is echoed to. Required.
	ContainerID int64
	// Lookup is LookupFreon (default) or LookupSingle.
	Lookup Lookup
	// LookupTimeout bounds the SCM lookup; DefaultLookupTimeout when zero.
	LookupTimeout time.Duration
	// Token is TokenAuto (default), TokenNone or an encoded container token to send as is.
	Token string
	// Transport is TransportGRPC (default) or TransportRatis.
	Transport Transport
	// GRPCClient is GRPCClientGRPC (default) or GRPCClientH2; over Ratis only the default.
	GRPCClient GRPCClient
	// UnsafeWrite lets Ratis writes go to a container SCM does not list as OPEN on its pipeline
	// (see checkWrite: on a real cluster such a write can close the pipeline).
	UnsafeWrite bool
	// Target is TargetFirst (default), TargetAll, or one DataNode's uuid, host or address. Over
	// Ratis only TargetFirst: calls go to the leader.
	Target string
	// Stream is StreamNew (default) or StreamReuse. Over Ratis only the default: one ordered
	// stream per client carries every call.
	Stream Stream
	// NoRetry stops a call after its first failed attempt instead of trying the other members.
	NoRetry bool
	// Clients is the number of independent clients (connections); worker i uses client
	// i mod Clients. DefaultClients when zero, at most MaxClients.
	Clients int
	// Deadline is the deadline of one attempt; zero means ozone.client.read.timeout (30 s) over
	// gRPC, hdds.ratis.raft.client.rpc.request.timeout (60 s) over Ratis.
	Deadline time.Duration
	// TLSCA are CA certificate PEM files for TLS to the DataNodes; they turn TLS on.
	TLSCA []string
	// Request is what Session.Echo sends.
	Request Request
	// NoReresolve keeps the pipeline found at Open for the whole session, as the Java tool does.
	NoReresolve bool
	// ReresolveAfter is DefaultReresolveAfter when zero (see Session).
	ReresolveAfter time.Duration
}

// clone returns s with its own copies of the slices.
func (s Spec) clone() Spec {
	s.Cluster.SCM = slices.Clone(s.Cluster.SCM)
	s.Cluster.Overrides = slices.Clone(s.Cluster.Overrides)
	s.TLSCA = slices.Clone(s.TLSCA)
	return s
}

// withDefaults fills in the defaults of a valid Spec.
func (s Spec) withDefaults() Spec {
	s = s.clone()
	if s.Lookup == "" {
		s.Lookup = LookupFreon
	}
	if s.LookupTimeout == 0 {
		s.LookupTimeout = DefaultLookupTimeout
	}
	if s.Token == "" {
		s.Token = TokenAuto
	}
	if s.Transport == "" {
		s.Transport = TransportGRPC
	}
	if s.GRPCClient == "" {
		s.GRPCClient = GRPCClientGRPC
	}
	if s.Target == "" {
		s.Target = TargetFirst
	}
	if s.Stream == "" {
		s.Stream = StreamNew
	}
	if s.Clients == 0 {
		s.Clients = DefaultClients
	}
	if s.ReresolveAfter == 0 {
		s.ReresolveAfter = DefaultReresolveAfter
	}
	s.Cluster.SCM = normalizeSCM(s.Cluster.SCM)
	return s
}

func (l Lookup) mode() scm.LookupMode {
	if l == LookupSingle {
		return scm.LookupWithPipeline
	}
	return scm.LookupFreon
}

func (g GRPCClient) transport() datanode.Transport {
	if g == GRPCClientH2 {
		return datanode.TransportH2
	}
	return datanode.TransportGRPC
}

func (s Stream) mode() datanode.StreamMode {
	if s == StreamReuse {
		return datanode.StreamReused
	}
	return datanode.StreamPerRequest
}
