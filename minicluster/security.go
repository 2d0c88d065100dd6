package minicluster

import (
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/minicluster/krbacceptor"
	"github.com/dnecho/dnecho/minicluster/omsim"
	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// Security makes the SCM and the OM Kerberized, as ozone.security.enabled with
// hadoop.security.authentication=kerberos does on a real cluster: they accept only SASL GSSAPI,
// verify tickets with their own keytabs, offer the configured protections and check
// administrators on the authenticated user's short name.
type Security struct {
	// SCMPrincipal and SCMKeytab are hdds.scm.kerberos.principal and hdds.scm.kerberos.keytab.file
	// ("scm/localhost@REALM"; _HOST is localhost).
	SCMPrincipal, SCMKeytab string
	// OMPrincipal and OMKeytab are ozone.om.kerberos.principal and ozone.om.kerberos.keytab.file.
	OMPrincipal, OMKeytab string
	// Protection is hadoop.rpc.protection; default authentication.
	Protection []hadooprpc.QOP
}

// rpc builds the Hadoop RPC server options of one secure service.
func (s *Security) rpc(principal, keytab, key string) (rpcserver.Options, error) {
	if principal == "" || keytab == "" {
		return rpcserver.Options{}, fmt.Errorf("minicluster: a Kerberos %s needs its principal and keytab (%s)", key, key)
	}
	acc, err := krbacceptor.New(keytab, principal)
	if err != nil {
		return rpcserver.Options{}, fmt.Errorf("minicluster: %s: %w", key, err)
	}
	return rpcserver.Options{Kerberos: acc, Protection: s.Protection}, nil
}

// startOM runs the emulated OM that hands out the DataNodes' CA certificates; it is needed
// when TLS is on (clients without a CA file ask it, as freon does).
func (c *Cluster) startOM(o Options) error {
	cfg := omsim.Config{CAPEM: c.CAPEM()}
	if o.Security != nil {
		var err error
		if cfg.RPC, err = o.Security.rpc(o.Security.OMPrincipal, o.Security.OMKeytab, "ozone.om.kerberos"); err != nil {
			return err
		}
	}
	g, err := omsim.Start(cfg)
	if err != nil {
		return err
	}
	c.om = g
	return nil
}

// securityConfig adds the client keys of a secure cluster.
func (c *Cluster) securityConfig(p map[string]string) {
	if c.om != nil {
		p[config.KeyOMAddress] = c.om.Addrs()[0]
	}
	s := c.opts.Security
	if s == nil {
		return
	}
	p[config.KeySecurityEnabled] = "true"
	p[config.KeyHadoopAuthentication] = "kerberos"
	p[config.KeySCMKerberosPrincipal] = s.SCMPrincipal
	p[config.KeyOMKerberosPrincipal] = s.OMPrincipal
	var names []string
	for _, q := range s.Protection {
		names = append(names, q.String())
	}
	if len(names) > 0 {
		p[config.KeyRPCProtection] = strings.Join(names, ",")
	}
}
