package echo

import (
	"context"
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
	"github.com/dnecho/dnecho/ozone/om"
)

// rpcAuth is how a lookup authenticates its Hadoop RPC calls: SIMPLE as a user name, or Kerberos
// with a login shared by the SCM and OM connections of one lookup. Every lookup logs in afresh,
// so a long session's re-resolutions pick up a renewed ticket cache or log in from the keytab
// again (docs/kerberos.md, Login).
type rpcAuth struct {
	user       string
	cred       *kerberos.Credentials // nil: SIMPLE
	protection []hadooprpc.QOP
}

// newRPCAuth logs in when the configuration asks for Kerberos.
func newRPCAuth(ctx context.Context, c Cluster, settings config.ClientSettings) (*rpcAuth, error) {
	if !settings.Kerberos {
		if c.Principal != "" || c.Keytab != "" {
			return nil, fieldErr(FieldPrincipal, c.Principal, "is for a Kerberos cluster, but the configuration says "+
				"hadoop.security.authentication is simple (set it to kerberos, e.g. with -D)")
		}
		return &rpcAuth{user: c.User}, nil
	}
	prot, err := hadooprpc.ParseProtection(settings.RPCProtection)
	if err != nil {
		return nil, err
	}
	cred, err := kerberos.LoginContext(ctx, kerberos.LoginOptions{Principal: c.Principal, Keytab: c.Keytab})
	if err != nil && ctx.Err() != nil { // Ctrl-C while the KDC is slow to answer
		return nil, fmt.Errorf("Kerberos login %w", ErrInterrupted)
	}
	if err != nil {
		return nil, fmt.Errorf("Kerberos login (hadoop.security.authentication=kerberos): %w", err)
	}
	return &rpcAuth{user: cred.Principal(), cred: cred, protection: prot}, nil
}

// options are the Hadoop RPC options for a service whose principal is configured under key.
func (a *rpcAuth) options(key, configured, pattern string) hadooprpc.Options {
	if a.cred == nil {
		return hadooprpc.Options{User: a.user}
	}
	return hadooprpc.Options{User: a.user, Authenticator: &hadooprpc.Kerberos{
		Credentials: a.cred, Protection: a.protection,
		Principal: hadooprpc.ServerPrincipal{Key: key, Configured: configured, Pattern: pattern},
	}}
}

func (a *rpcAuth) close() {
	if a.cred != nil {
		a.cred.Close()
	}
}

// caFromOM fetches the SCM CA certificates from the Ozone Manager, as freon dn-echo does on a
// secure cluster when TLS to the DataNodes is on (Ozone: DNRPCLoadGenerator, getServiceInfo).
func caFromOM(ctx context.Context, cfg *config.Config, settings config.ClientSettings, auth *rpcAuth) ([]byte, error) {
	nodes, err := cfg.OMNodes()
	if err != nil {
		return nil, caNeeded(err)
	}
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.Address())
	}
	c, err := om.New(om.Options{Addresses: addrs, RetryWait: settings.OMRetryWait, MaxFailovers: settings.OMMaxFailovers,
		RPC: auth.options(config.KeyOMKerberosPrincipal, settings.OMKerberosPrincipal, settings.OMKerberosPrincipalPattern)})
	if err != nil {
		return nil, caNeeded(err)
	}
	defer c.Close()
	pem, err := c.CACertificates(ctx)
	if err != nil {
		return nil, caNeeded(fmt.Errorf("Ozone Manager at %s: %w", strings.Join(addrs, ", "), err))
	}
	return pem, nil
}

// caNeeded says why the OM was asked, and names the option that avoids asking it.
func caNeeded(err error) error {
	return fieldErr(FieldTLSCA, nil, "not given, and fetching the CA certificates from the Ozone Manager "+
		"(what freon does when TLS to the DataNodes is on) failed: %v", err)
}
