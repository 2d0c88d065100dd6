package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/ozone/kerberos"
)

// Server keys `dnecho cluster` reads, as a real SCM and OM do (ozone-default.xml, core-default.xml).
const (
	keySCMKeytab   = "hdds.scm.kerberos.keytab.file"
	keyOMKeytab    = "ozone.om.kerberos.keytab.file"
	keyAdmins      = "ozone.administrators"
	serverKeysHelp = "ozone.security.enabled, hadoop.security.authentication, hadoop.rpc.protection, hdds.scm.kerberos.principal, " +
		"hdds.scm.kerberos.keytab.file, ozone.om.kerberos.principal, ozone.om.kerberos.keytab.file, ozone.administrators, " +
		"hdds.container.token.enabled, hdds.grpc.tls.enabled"
)

// applyServerConfig reads the server configuration (--site, then -D) into the cluster options:
// tokens, TLS, Kerberos for the SCM and the OM, and the administrators.
func (f *clusterFlags) applyServerConfig() error {
	cfg, err := config.Load(f.site, f.sets)
	if err != nil {
		return err
	}
	secure, _ := cfg.GetBool(config.KeySecurityEnabled, false)
	if v, _ := cfg.GetBool(config.KeyContainerTokenEnabled, false); v {
		f.opts.Tokens = true
	}
	if v, _ := cfg.GetBool(config.KeyGRPCTLSEnabled, false); v && secure {
		f.opts.TLS = true
	}
	kerb := strings.EqualFold(cfg.GetTrimmed(config.KeyHadoopAuthentication, "simple"), "kerberos")
	if kerb && !secure {
		return fmt.Errorf("-D %s=kerberos needs -D %s=true, as on a real cluster", config.KeyHadoopAuthentication, config.KeySecurityEnabled)
	}
	if kerb {
		sec := &minicluster.Security{SCMKeytab: cfg.GetTrimmed(keySCMKeytab, ""), OMKeytab: cfg.GetTrimmed(keyOMKeytab, "")}
		if sec.SCMPrincipal, err = serverPrincipal(cfg, config.KeySCMKerberosPrincipal); err != nil {
			return err
		}
		if sec.OMPrincipal, err = serverPrincipal(cfg, config.KeyOMKerberosPrincipal); err != nil {
			return err
		}
		for key, v := range map[string]string{keySCMKeytab: sec.SCMKeytab, keyOMKeytab: sec.OMKeytab} {
			if v == "" {
				return fmt.Errorf("-D %s is needed with Kerberos: the keytab holding the service principal's keys", key)
			}
		}
		if sec.Protection, err = hadooprpc.ParseProtection(cfg.GetStrings(config.KeyRPCProtection)); err != nil {
			return fmt.Errorf("-D %w", err)
		}
		f.opts.Security = sec
	}
	if secure && f.opts.Admins == nil {
		f.opts.Admins = admins(cfg, f.opts.Security)
	}
	return nil
}

// serverPrincipal reads a service principal; _HOST is the emulator's host, localhost, and a
// principal without a realm is in krb5.conf's default realm.
func serverPrincipal(cfg *config.Config, key string) (string, error) {
	p := cfg.GetTrimmed(key, "")
	if p == "" {
		return "", fmt.Errorf("-D %s is needed with Kerberos, e.g. %s/localhost@EXAMPLE.COM", key, strings.SplitN(key, ".", 3)[1])
	}
	p = strings.Replace(p, "/_HOST", "/localhost", 1)
	if !strings.Contains(p, "@") {
		realm, err := kerberos.DefaultRealm()
		if err != nil {
			return "", fmt.Errorf("-D %s=%s has no realm: %w", key, p, err)
		}
		p += "@" + realm
	}
	return p, nil
}

// admins is SCM's administrator list: ozone.administrators plus the user SCM runs as (the short
// name of its principal); "*" lets everyone in (nil turns the check off).
func admins(cfg *config.Config, sec *minicluster.Security) []string {
	list := cfg.GetStrings(keyAdmins)
	if slices.Contains(list, "*") {
		return nil
	}
	if sec != nil {
		list = append(list, kerberos.ShortName(sec.SCMPrincipal))
	} else {
		list = append(list, hadooprpc.DefaultUser()) // the SIMPLE user that started the emulator
	}
	return append([]string{}, list...)
}
