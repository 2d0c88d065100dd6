package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// --site reads the server keys from an ozone-site.xml; -D overrides it.
func TestClusterSiteFile(t *testing.T) {
	site := filepath.Join(t.TempDir(), "ozone-site.xml")
	xml := `<configuration>
<property><name>ozone.security.enabled</name><value>true</value></property>
<property><name>hadoop.security.authentication</name><value>kerberos</value></property>
<property><name>hadoop.rpc.protection</name><value>integrity,privacy</value></property>
<property><name>hdds.scm.kerberos.principal</name><value>scm/_HOST@EXAMPLE.COM</value></property>
<property><name>hdds.scm.kerberos.keytab.file</name><value>/etc/scm.keytab</value></property>
<property><name>ozone.om.kerberos.principal</name><value>om/_HOST@EXAMPLE.COM</value></property>
<property><name>ozone.om.kerberos.keytab.file</name><value>/etc/om.keytab</value></property>
<property><name>ozone.administrators</name><value>alice,carol</value></property>
<property><name>hdds.grpc.tls.enabled</name><value>true</value></property>
</configuration>`
	if err := os.WriteFile(site, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &clusterFlags{site: site, sets: []string{"hadoop.rpc.protection=privacy"}}
	if err := f.applyServerConfig(); err != nil {
		t.Fatal(err)
	}
	s := f.opts.Security
	if s == nil || s.SCMPrincipal != "scm/localhost@EXAMPLE.COM" || s.OMKeytab != "/etc/om.keytab" ||
		len(s.Protection) != 1 || s.Protection[0] != hadooprpc.QOPPrivacy || !f.opts.TLS ||
		strings.Join(f.opts.Admins, ",") != "alice,carol,scm" {
		t.Fatalf("options %+v, security %+v", f.opts, s)
	}
	f = &clusterFlags{sets: []string{"hadoop.security.authentication=kerberos"}}
	if err := f.applyServerConfig(); err == nil || !strings.Contains(err.Error(), "ozone.security.enabled=true") {
		t.Fatalf("Kerberos without security: %v", err)
	}
}
