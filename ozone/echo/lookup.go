package echo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/token"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// Placement is where a session's calls go, as a lookup found it: the container, its pipeline and
// the token to send. (Spec.Target is something else: which of its members calls go to.)
type Placement struct {
	Container *hddspb.ContainerInfoProto
	Pipeline  *hddspb.Pipeline
	// Token is the encoded container token, "" when none is sent.
	Token string
	// Settings are the client settings read from the configuration (defaults without one).
	Settings config.ClientSettings
	// SCMAddrs are the SCM addresses that were asked.
	SCMAddrs []string
	// ConfDir is the configuration directory that was read, "" when none.
	ConfDir string
	// CAPEM are the CA certificates fetched from the Ozone Manager for TLS to the DataNodes; nil
	// when TLS is off or CA files were given.
	CAPEM []byte
	// User is who the SCM calls ran as: the Kerberos principal, or the SIMPLE user ("" for the default).
	User string
	// Transport is the Spec's: Describe shows the port it uses.
	Transport Transport
}

// PipelineID is the pipeline's id as text (a UUID).
func (t *Placement) PipelineID() string { return hddspb.PipelineIDText(t.Pipeline.GetId()) }

// Describe is a one-line description of the placement for logs and headers: the members with the
// port the transport uses, and over Ratis the leader SCM lists.
func (t *Placement) Describe() string {
	port, leader := "STANDALONE", ""
	if t.Transport == TransportRatis {
		port = ratispb.PortRatis
		if id := t.Pipeline.GetLeaderID(); id != "" {
			leader = ", leader " + id
		}
	}
	var members []string
	for _, m := range t.Pipeline.GetMembers() {
		addr := m.GetIpAddress()
		for _, p := range m.GetPorts() {
			if strings.EqualFold(p.GetName(), port) && p.GetValue() != 0 {
				addr = fmt.Sprintf("%s:%d", addr, p.GetValue())
			}
		}
		members = append(members, addr)
	}
	return fmt.Sprintf("container %d (%s), pipeline %s, %d DataNode(s) [%s]%s, SCM %s",
		t.Container.GetContainerID(), t.Container.GetState(), t.PipelineID(), len(members),
		strings.Join(members, ", "), leader, strings.Join(t.SCMAddrs, ","))
}

// loadConfig reads the configuration the cluster points at; an empty configuration (all
// defaults) when only SCM addresses are given.
func loadConfig(c Cluster, getenv func(string) string) (*config.Config, string, error) {
	dir := config.ResolveDir(c.ConfDir, getenv)
	if dir == "" {
		if len(c.SCM) == 0 {
			return nil, "", ErrNoCluster
		}
		cfg := config.New()
		for _, kv := range c.Overrides {
			if err := cfg.SetOverride(kv); err != nil {
				return nil, "", err
			}
		}
		return cfg, "", nil
	}
	cfg, err := config.Load(dir, c.Overrides)
	if err != nil {
		return nil, "", err
	}
	return cfg, dir, nil
}

// lookup reads the configuration, asks SCM for the container's pipeline (and token) and returns
// the placement; s has its defaults. While SCM is slow to answer, obs hears EventSlowLookup.
// Errors say which step failed and why; the typed scm errors stay reachable with errors.As.
func lookup(ctx context.Context, s Spec, obs Observer) (*Placement, error) {
	cfg, dir, err := loadConfig(s.Cluster, os.Getenv)
	if err != nil {
		return nil, err
	}
	settings, err := cfg.ClientSettings()
	if err != nil {
		return nil, err
	}
	addrs, ids, err := scmNodes(s.Cluster, cfg, dir)
	if err != nil {
		return nil, err
	}
	auth, err := newRPCAuth(ctx, s.Cluster, settings)
	if err != nil {
		return nil, err
	}
	defer auth.close()
	ctx, cancel := context.WithTimeout(ctx, s.LookupTimeout)
	defer cancel()
	retries := &scmRetries{obs: obs, said: map[string]bool{}}
	defer retries.stillWaiting(s).Stop()
	t, err := ask(ctx, s, settings, scm.Options{Addresses: addrs, NodeIDs: ids, OnRetry: retries.report}, auth)
	if err != nil {
		return nil, explain(ctx, err, addrs, s.LookupTimeout)
	}
	t.ConfDir, t.Transport = dir, s.Transport
	if settings.GRPCTLS && len(s.TLSCA) == 0 {
		if t.CAPEM, err = caFromOM(ctx, cfg, settings, auth); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// scmNodes are the SCMs to ask, with their node ids when the configuration names them: the
// Cluster's addresses, else the configuration's.
func scmNodes(c Cluster, cfg *config.Config, dir string) (addrs, ids []string, err error) {
	if len(c.SCM) > 0 {
		return c.SCM, nil, nil
	}
	nodes, err := cfg.SCMNodes()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	for _, n := range nodes {
		addrs = append(addrs, n.Address())
		if n.ID != "" {
			ids = append(ids, n.ID)
		}
	}
	return addrs, ids, nil
}

// scmAttemptTimeout is how long one SCM may stay silent in a lookup: hdds.scmclient.rpc.timeout
// when the configuration sets it, else DefaultSCMAttemptTimeout; either way at most a quarter of
// the lookup timeout, so that a hung SCM leaves time to ask the others
// (docs/ozone-scm.md#a-silent-scm).
func scmAttemptTimeout(settings config.ClientSettings, lookup time.Duration) time.Duration {
	d := DefaultSCMAttemptTimeout
	if settings.SCMRPCTimeoutSet {
		d = settings.SCMRPCTimeout
	}
	return max(min(d, lookup/4), time.Millisecond)
}

// ask makes the SCM calls; o holds the SCMs to ask, the rest comes from the settings.
func ask(ctx context.Context, s Spec, settings config.ClientSettings, o scm.Options, auth *rpcAuth) (*Placement, error) {
	o.MaxRetries = settings.SCMRetryLimit()
	if o.MaxRetries <= 0 {
		o.MaxRetries = scm.NoRetries // both retry keys set to 0: one attempt, not scm's default budget
	}
	o.RetryInterval = settings.SCMFailoverRetryInterval
	o.RPCTimeout = scmAttemptTimeout(settings, s.LookupTimeout)
	o.RPC = auth.options(config.KeySCMKerberosPrincipal, settings.SCMKerberosPrincipal, settings.SCMKerberosPrincipalPattern)
	o.RPC.ConnectTimeout = settings.IPCConnectTimeout
	client, err := scm.New(o)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	lk, err := client.LookupPipeline(ctx, uint64(s.ContainerID), s.Lookup.mode())
	if err != nil {
		return nil, err
	}
	t := &Placement{Container: lk.Container, Pipeline: lk.Pipeline, Settings: settings, SCMAddrs: o.Addresses, User: auth.user}
	switch s.Token {
	case TokenAuto:
		if settings.ContainerTokenEnabled {
			tok, err := client.GetContainerToken(ctx, uint64(s.ContainerID))
			if err != nil {
				return nil, fmt.Errorf("get container token: %w", err)
			}
			t.Token = token.Encode(tok)
		}
	case TokenNone:
	default:
		t.Token = s.Token // checked by Validate
	}
	return t, nil
}

// ErrInterrupted is wrapped by the error of a lookup that the caller's context cancelled (Ctrl-C):
// front ends report an interrupt, not a failure.
var ErrInterrupted = errors.New("interrupted")

// explain turns a lookup failure into a sentence a user can act on.
func explain(ctx context.Context, err error, addrs []string, timeout time.Duration) error {
	var unreachable *scm.UnreachableError
	switch {
	case errors.Is(context.Cause(ctx), context.Canceled) || errors.Is(err, context.Canceled):
		return fmt.Errorf("SCM lookup at %s %w", strings.Join(addrs, ", "), ErrInterrupted)
	case errors.As(err, &unreachable):
		return fmt.Errorf("no SCM answered at %s within %s: %w", strings.Join(addrs, ", "), timeout, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("SCM lookup at %s did not finish within %s: %w", strings.Join(addrs, ", "), timeout, err)
	}
	return err
}
