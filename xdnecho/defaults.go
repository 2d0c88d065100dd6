package xdnecho

import "slices"

// Defaults is the cluster a Client uses when its options give neither `scm` nor `conf`: the
// front end passes it to New (`dnecho run --local-cluster`, `--conf`, `--scm`). Without defaults
// such a Client reads $OZONE_CONF_DIR, and fails with a message naming the options when that is
// unset too.
type Defaults struct {
	// SCM lists SCM client addresses ("host:port").
	SCM []string
	// ConfDir holds ozone-site.xml.
	ConfDir string
	// Overrides are "key=value" configuration settings applied under a Client's own `set`.
	Overrides []string
	// CAFiles are CA PEM files for TLS to the DataNodes, used when the Client has no tlsCA.
	CAFiles []string
	// User is the Hadoop RPC user, used when the Client has no user option.
	User string
	// Principal and Keytab are the Kerberos login, used when the Client has neither.
	Principal, Keytab string
	// Dry makes Clients validate their options without contacting any cluster, for commands that
	// only read a script (dnecho inspect, dnecho archive): pipeline() then lists no DataNodes and
	// echo() throws.
	Dry bool
}

func (d Defaults) clone() Defaults {
	return Defaults{SCM: slices.Clone(d.SCM), ConfDir: d.ConfDir, Overrides: slices.Clone(d.Overrides),
		CAFiles: slices.Clone(d.CAFiles), User: d.User, Principal: d.Principal, Keytab: d.Keytab, Dry: d.Dry}
}

// isSet reports whether the defaults name a cluster.
func (d Defaults) isSet() bool { return len(d.SCM) > 0 || d.ConfDir != "" }
