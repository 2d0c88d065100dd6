// Package target resolves what an Echo load needs before its first call: the SCM address(es) from
// flags or ozone-site.xml, the container and its pipeline from SCM, the container token, and the
// DataNode client options the configuration implies (deadline, TLS, host names).
//
// It is the one place where ozone/config, ozone/scm and ozone/datanode meet, so that the freon
// command and the k6/x/dnecho module do the lookup the same way.
package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
)

// DefaultLookupTimeout bounds the whole SCM lookup. Ozone's Java client would keep retrying an
// unreachable SCM for up to 10 minutes (hdds.scmclient.max.retry.timeout); a measuring tool should
// say what is wrong sooner. Override it with Options.LookupTimeout.
const DefaultLookupTimeout = 60 * time.Second

// Token modes of Options.Token besides a literal encoded token.
const (
	// TokenAuto fetches a container token from SCM when hdds.container.token.enabled is true in the
	// client configuration (what freon does), and sends none otherwise.
	TokenAuto = "auto"
	// TokenNone sends no token.
	TokenNone = "none"
)

// Options says where the cluster is and what to look up.
type Options struct {
	// SCM lists SCM client addresses ("host:port", port 9860 when omitted). When set, the
	// configuration's SCM keys are not consulted.
	SCM []string
	// ConfDir holds ozone-site.xml; "" means $OZONE_CONF_DIR (when set).
	ConfDir string
	// Overrides are "key=value" settings applied over the configuration (-D).
	Overrides []string
	// ContainerID is the container whose pipeline is echoed to.
	ContainerID int64
	// Lookup selects freon's GetContainer+ListPipelines sequence or GetContainerWithPipeline.
	Lookup scm.LookupMode
	// Token is TokenAuto (default when ""), TokenNone, or an encoded token to send as is.
	Token string
	// LookupTimeout bounds the SCM lookup; DefaultLookupTimeout when zero.
	LookupTimeout time.Duration
	// User is the Hadoop RPC user; the OS user when "".
	User string
	// Getenv reads the environment; os.Getenv when nil.
	Getenv func(string) string
}

// Target is a resolved echo target.
type Target struct {
	Container *hddspb.ContainerInfoProto
	Pipeline  *hddspb.Pipeline
	// Token is the encoded container token, "" when none is sent.
	Token string
	// Settings are the client settings read from the configuration (defaults without one).
	Settings config.ClientSettings
	// SCMAddrs are the SCM addresses that were used.
	SCMAddrs []string
	// ConfDir is the configuration directory that was read, "" when none.
	ConfDir string
}

// ErrNoCluster means neither SCM addresses nor a configuration directory were given.
var ErrNoCluster = errors.New("no cluster given: pass --scm host:port, --conf DIR (holding ozone-site.xml) or set OZONE_CONF_DIR; " +
	"for a local emulated cluster run `dnecho cluster --conf-dir DIR`")

// LoadConfig reads the configuration the options point at. It returns an empty configuration
// (all defaults) when only SCM addresses were given.
func LoadConfig(o Options) (*config.Config, string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := config.ResolveDir(o.ConfDir, getenv)
	if dir == "" {
		if len(o.SCM) == 0 {
			return nil, "", ErrNoCluster
		}
		cfg := config.New()
		for _, kv := range o.Overrides {
			if err := cfg.SetOverride(kv); err != nil {
				return nil, "", err
			}
		}
		return cfg, "", nil
	}
	cfg, err := config.Load(dir, o.Overrides)
	if err != nil {
		return nil, "", err
	}
	return cfg, dir, nil
}

// Resolve reads the configuration, asks SCM for the container's pipeline (and token) and returns
// the target. Errors say which step failed and why.
func Resolve(ctx context.Context, o Options) (*Target, error) {
	if o.ContainerID <= 0 {
		return nil, fmt.Errorf("container id must be a positive number, got %d (pass --container-id)", o.ContainerID)
	}
	cfg, dir, err := LoadConfig(o)
	if err != nil {
		return nil, err
	}
	settings, err := cfg.ClientSettings()
	if err != nil {
		return nil, err
	}
	addrs := normalizeAddrs(o.SCM)
	if len(addrs) == 0 {
		nodes, err := cfg.SCMNodes()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		for _, n := range nodes {
			addrs = append(addrs, n.Address())
		}
	}
	if settings.Kerberos {
		return nil, fmt.Errorf("the configuration in %s asks for Kerberos (hadoop.security.authentication=kerberos): "+
			"Kerberos SASL is not supported yet; use a cluster or an SCM that accepts SIMPLE authentication", dir)
	}
	timeout := o.LookupTimeout
	if timeout <= 0 {
		timeout = DefaultLookupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	retries := settings.SCMRetryLimit()
	if retries <= 0 {
		retries = scm.NoRetries // both retry keys set to 0: one attempt, not scm's default budget
	}
	client, err := scm.New(scm.Options{
		Addresses:     addrs,
		RetryInterval: settings.SCMFailoverRetryInterval,
		MaxRetries:    retries,
		RPCTimeout:    settings.SCMRPCTimeout,
		RPC:           hadooprpc.Options{User: o.User},
	})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	lk, err := client.LookupPipeline(ctx, uint64(o.ContainerID), o.Lookup)
	if err != nil {
		return nil, explain(err, addrs, timeout)
	}
	t := &Target{Container: lk.Container, Pipeline: lk.Pipeline, Settings: settings, SCMAddrs: addrs, ConfDir: dir}
	switch o.Token {
	case "", TokenAuto:
		if settings.ContainerTokenEnabled {
			tok, err := client.GetContainerToken(ctx, uint64(o.ContainerID))
			if err != nil {
				return nil, fmt.Errorf("get container token: %w", explain(err, addrs, timeout))
			}
			t.Token = token.Encode(tok)
		}
	case TokenNone:
	default:
		if _, err := token.Decode(o.Token); err != nil {
			return nil, fmt.Errorf("the given token does not decode as a Hadoop token: %w", err)
		}
		t.Token = o.Token
	}
	return t, nil
}

// explain turns a lookup failure into a sentence a user can act on; the typed error stays
// reachable with errors.Is/As.
func explain(err error, addrs []string, timeout time.Duration) error {
	var denied *scm.AccessDeniedError
	var unreachable *scm.UnreachableError
	switch {
	case errors.As(err, &denied):
		return fmt.Errorf("%w\n(GetContainer and GetContainerToken are SCM admin calls: run as a user listed in ozone.administrators)", err)
	case errors.As(err, &unreachable):
		return fmt.Errorf("no SCM answered at %s within %s: %w", strings.Join(addrs, ", "), timeout, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("SCM lookup at %s did not finish within %s: %w", strings.Join(addrs, ", "), timeout, err)
	}
	return err
}

// DataNodeOptions returns datanode client options implied by the configuration, on top of base:
// the read timeout as deadline, host names instead of IPs, the default STANDALONE port, and TLS
// (which needs CA files: the Java client gets them from OM, we take them from the caller).
func (t *Target) DataNodeOptions(base datanode.Options, caFiles []string) (datanode.Options, error) {
	o := base
	if o.Timeout == 0 {
		o.Timeout = t.Settings.ReadTimeout
	}
	if t.Settings.UseDatanodeHostname {
		o.UseHostname = true
	}
	if o.DefaultPort == 0 {
		o.DefaultPort = t.Settings.ContainerIPCPort
	}
	if o.TLS == nil && (t.Settings.GRPCTLS || len(caFiles) > 0) {
		if len(caFiles) == 0 {
			return o, errors.New("the configuration enables TLS to the DataNodes (ozone.security.enabled and hdds.grpc.tls.enabled) " +
				"but no CA certificate was given: pass the SCM CA certificate file(s) with --tls-ca")
		}
		o.TLS = &datanode.TLSOptions{CAFiles: caFiles, TestCert: t.Settings.GRPCTLSTestCert}
	}
	return o, nil
}

// Describe is a one-line description of the target for logs and headers.
func (t *Target) Describe() string {
	var members []string
	for _, m := range t.Pipeline.GetMembers() {
		addr := m.GetIpAddress()
		for _, p := range m.GetPorts() {
			if strings.EqualFold(p.GetName(), "STANDALONE") && p.GetValue() != 0 {
				addr = fmt.Sprintf("%s:%d", addr, p.GetValue())
			}
		}
		members = append(members, addr)
	}
	return fmt.Sprintf("container %d (%s), pipeline %s, %d DataNode(s) [%s], SCM %s",
		t.Container.GetContainerID(), t.Container.GetState(), PipelineID(t.Pipeline), len(members),
		strings.Join(members, ", "), strings.Join(t.SCMAddrs, ","))
}

// PipelineID returns the pipeline's id as text (the UUID).
func PipelineID(p *hddspb.Pipeline) string { return hddspb.PipelineIDText(p.GetId()) }

func normalizeAddrs(in []string) []string {
	var out []string
	for _, a := range in {
		for _, p := range strings.Split(a, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !strings.Contains(p, ":") || strings.HasSuffix(p, "]") {
				p = fmt.Sprintf("%s:%d", p, scm.DefaultPort)
			}
			out = append(out, p)
		}
	}
	return out
}
