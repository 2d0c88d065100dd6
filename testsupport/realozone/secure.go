package realozone

// Security is what a secure cluster needs: a KDC's krb5.conf, the service principals with their
// keytabs, the administrators, the RPC protection, and the client's ticket cache.
type Security struct {
	// Krb5Conf is the krb5.conf every JVM reads (-Djava.security.krb5.conf).
	Krb5Conf string
	// SCM, OM and DataNode principals (literal host parts, no _HOST) and keytabs.
	SCMPrincipal, SCMKeytab string
	OMPrincipal, OMKeytab   string
	DNPrincipal, DNKeytab   string
	// Administrators is ozone.administrators (short names, comma separated).
	Administrators string
	// Protection is hadoop.rpc.protection: authentication, integrity or privacy.
	Protection string
	// ClientCache is the ticket cache (KRB5CCNAME) of admin and Java freon commands.
	ClientCache string
}

// properties are the secure-mode keys of every process (docs/real-ozone.md, "Secure mode").
func (s *Security) properties(string) []property {
	protection := s.Protection
	if protection == "" {
		protection = "authentication"
	}
	return []property{
		{"ozone.security.enabled", "true"},
		{"hadoop.security.authentication", "kerberos"},
		{"hadoop.rpc.protection", protection},
		{"hdds.scm.kerberos.principal", s.SCMPrincipal},
		{"hdds.scm.kerberos.keytab.file", s.SCMKeytab},
		{"ozone.om.kerberos.principal", s.OMPrincipal},
		{"ozone.om.kerberos.keytab.file", s.OMKeytab},
		{"hdds.datanode.kerberos.principal", s.DNPrincipal},
		{"hdds.datanode.kerberos.keytab.file", s.DNKeytab},
		{"hdds.block.token.enabled", "true"},
		{"hdds.container.token.enabled", "true"},
		{"hdds.grpc.tls.enabled", "true"},
		{"ozone.administrators", s.Administrators},
		{"ozone.security.http.kerberos.enabled", "false"},
	}
}
