package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dnecho/dnecho/ozone/echo"
)

// specFlag is a command-line flag that sets one field of an echo.Spec through the Spec's own
// parser, so the CLI accepts exactly what the JavaScript options accept.
type specFlag struct {
	spec  *echo.Spec
	field echo.Field
	typ   string
	def   string
	given []string // the values Set accepted, in order (a list flag is repeatable)
}

// String is the value as given (a repeated flag's values joined by commas), else the default;
// pflag reads it once, before any Set, for the default that --help shows.
func (f *specFlag) String() string {
	if f.given == nil {
		return f.def
	}
	return strings.Join(f.given, ",")
}

func (f *specFlag) Type() string { return f.typ }

// Set parses v; pflag already names the flag and the value, so the error is only the reason.
func (f *specFlag) Set(v string) error {
	err := f.spec.Set(f.field, v)
	var fe *echo.FieldError
	if errors.As(err, &fe) {
		return errors.New(fe.Reason)
	}
	if err == nil {
		f.given = append(f.given, v)
	}
	return err
}

// specFlags registers Spec fields on a flag set and names them in errors.
type specFlags struct {
	fl    *pflag.FlagSet
	spec  *echo.Spec
	names map[echo.Field]string
}

func newSpecFlags(fl *pflag.FlagSet, spec *echo.Spec) *specFlags {
	return &specFlags{fl: fl, spec: spec, names: map[echo.Field]string{}}
}

// add registers --name (and -short) for field; typ and def are shown in --help.
func (s *specFlags) add(field echo.Field, name, short, typ, def, usage string) *pflag.Flag {
	f := s.fl.VarPF(&specFlag{spec: s.spec, field: field, typ: typ, def: def}, name, short, usage)
	s.names[field] = "--" + name
	return f
}

// addBool registers a boolean --name that sets field to true.
func (s *specFlags) addBool(field echo.Field, name, usage string) {
	f := s.add(field, name, "", "", "false", usage)
	f.NoOptDefVal = "true"
}

// name maps a Spec field to its flag, for echo.Rename; unknown fields keep their own name.
func (s *specFlags) name(f echo.Field) string { return s.names[f] }

// rename rewrites Spec field names in err into flag names.
func (s *specFlags) rename(err error) error { return echo.Rename(err, s.name) }

// addCluster registers the flags that say where the cluster is, shared by freon and run.
func (s *specFlags) addCluster() {
	s.add(echo.FieldConfDir, "conf", "", "dir", "", "the Ozone configuration directory or an ozone-site.xml file (default $OZONE_CONF_DIR)")
	s.add(echo.FieldOverrides, "set", "D", "key=value", "", "configuration override key=value (repeatable)")
	s.names[echo.FieldOverrides] = "-D"
	s.add(echo.FieldSCM, "scm", "", "host:port", "", "SCM client address(es), comma-separated for SCM HA (instead of --conf)")
}

// addTransport registers --transport, the client that carries the gRPC calls.
func (s *specFlags) addTransport() {
	s.add(echo.FieldGRPCClient, "transport", "", "grpc|h2", string(echo.GRPCClientGRPC), "client of the gRPC calls: grpc (grpc-go) or h2 (dnecho's own HTTP/2 client, the same\nbytes on the wire at 0.3-0.4x the CPU per call; docs/h2-transport.md)")
}

// addKerberos registers the Kerberos login flags, shared by freon and run. Without them a
// Kerberos cluster is reached with the ticket cache of a kinit.
func (s *specFlags) addKerberos() {
	s.add(echo.FieldPrincipal, "principal", "", "name", "", "principal to log in as from --keytab (Kerberos; default: the ticket cache of kinit, $KRB5CCNAME)")
	s.add(echo.FieldKeytab, "keytab", "", "file", "", "keytab to log in from, with --principal (Kerberos; $KRB5_CONFIG names krb5.conf)")
}
