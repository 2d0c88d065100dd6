package echo

import (
	"errors"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/ozone/scm"
	"github.com/dnecho/dnecho/ozone/token"
)

// Validate checks every field of s, whatever way it was built; the error is a *FieldError for
// the first field found wrong. A Spec that passes has its documented defaults for zero fields.
func (s Spec) Validate() error {
	if s.ContainerID <= 0 {
		if s.ContainerID == 0 {
			return fieldErr(FieldContainerID, nil, "is required: the container whose pipeline is echoed to, e.g. 1")
		}
		return fieldErr(FieldContainerID, s.ContainerID, "want a positive whole number (a container id such as 1)")
	}
	for _, a := range s.Cluster.SCM {
		for _, p := range strings.Split(a, ",") {
			if p = strings.TrimSpace(p); p != "" {
				if err := checkSCMAddr(p); err != nil {
					return err
				}
			}
		}
	}
	for _, kv := range s.Cluster.Overrides {
		if err := checkOverride(kv); err != nil {
			return err
		}
	}
	checks := []func() error{
		s.Cluster.checkKerberos,
		func() error { return checkEnum(FieldLookup, s.Lookup, LookupFreon, LookupSingle) },
		func() error { return checkEnum(FieldStream, s.Stream, StreamNew, StreamReuse) },
		func() error { return checkEnum(FieldTransport, s.Transport, TransportGRPC, TransportRatis) },
		func() error { return checkEnum(FieldGRPCClient, s.GRPCClient, GRPCClientGRPC, GRPCClientH2) },
		func() error { return checkRatis(s) },
		func() error { return checkNotNegative(FieldLookupTimeout, s.LookupTimeout < 0, s.LookupTimeout) },
		func() error { return checkNotNegative(FieldDeadline, s.Deadline < 0, s.Deadline) },
		func() error { return checkNotNegative(FieldReresolveAfter, s.ReresolveAfter < 0, s.ReresolveAfter) },
		func() error { return checkClients(s.Clients) },
		func() error { return checkToken(s.Token) },
		func() error { return checkTarget(s.Target) },
		s.Request.Validate,
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks a Request's sizes and sleep.
func (r Request) Validate() error {
	if err := checkPayloadReq(r.PayloadReq); err != nil {
		return err
	}
	if r.SleepMs < 0 {
		return fieldErr(FieldSleepMs, r.SleepMs, "want a whole number of milliseconds from 0 to %d", math.MaxInt32)
	}
	return r.checkResponse()
}

func checkPayloadReq(n int64) error {
	switch {
	case n < 0:
		return fieldErr(FieldPayloadReq, n, "is negative: want 0 or more bytes")
	case n > MaxRequestBytes:
		return fieldErr(FieldPayloadReq, n, "exceeds the %d-byte (32 MiB) message limit of the DataNode's gRPC port", MaxRequestBytes)
	}
	return nil
}

func (r Request) checkResponse() error {
	switch {
	case r.PayloadResp < 0:
		return fieldErr(FieldPayloadResp, r.PayloadResp, "is negative: want 0 or more bytes")
	case r.Uncapped && r.PayloadResp > math.MaxInt32:
		return fieldErr(FieldPayloadResp, r.PayloadResp, "does not fit the request's 32-bit field (at most %d bytes)", math.MaxInt32)
	}
	return nil
}

func checkEnum[T ~string](f Field, v T, allowed ...T) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	var names []string
	for _, a := range allowed {
		names = append(names, string(a))
	}
	return fieldErr(f, strconv.Quote(string(v)), "use %s", strings.Join(names, " or "))
}

func checkNotNegative(f Field, negative bool, v any) error {
	if negative {
		return fieldErr(f, v, "must be positive (leave it unset for the default)")
	}
	return nil
}

// checkKerberos: a keytab needs the principal to log in as, and the SIMPLE user has no meaning
// beside a Kerberos principal.
func (c Cluster) checkKerberos() error {
	switch {
	case c.Keytab != "" && c.Principal == "":
		return fieldErr(FieldPrincipal, nil, "is needed with a keytab (%s): the principal to log in as, e.g. alice@EXAMPLE.COM", c.Keytab)
	case c.User != "" && (c.Principal != "" || c.Keytab != ""):
		return fieldErr(FieldUser, c.User, "is the SIMPLE-authentication user; with a Kerberos principal leave it out (the user is the principal)")
	}
	return nil
}

func checkClients(n int) error {
	if n < 0 || n > MaxClients {
		return fieldErr(FieldClients, n, "want 1 to %d (each client opens its own connection to every DataNode of the pipeline)", MaxClients)
	}
	return nil
}

// checkRatis refuses the gRPC-only options with the Ratis transport, which always sends to the
// leader on one ordered stream per client.
func checkRatis(s Spec) error {
	if s.Transport != TransportRatis {
		return nil
	}
	switch {
	case s.Target != "" && s.Target != TargetFirst:
		return fieldErr(FieldTarget, strconv.Quote(s.Target), "does not apply to the Ratis transport, which sends to the pipeline's leader; leave it out")
	case s.Stream == StreamReuse:
		return fieldErr(FieldStream, strconv.Quote(string(s.Stream)), "does not apply to the Ratis transport, which keeps one ordered stream per client; leave it out")
	case s.GRPCClient == GRPCClientH2:
		return fieldErr(FieldGRPCClient, strconv.Quote(string(s.GRPCClient)), "does not apply to the Ratis transport, whose Raft client runs on grpc-go; leave it out")
	}
	return nil
}

func checkTarget(t string) error {
	if t != "" && strings.TrimSpace(t) == "" {
		return fieldErr(FieldTarget, strconv.Quote(t), "use %q, %q, or a DataNode's uuid, host or address", TargetFirst, TargetAll)
	}
	return nil
}

func checkToken(t string) error {
	if t == "" || t == TokenAuto || t == TokenNone {
		return nil
	}
	if _, err := token.Decode(t); err != nil {
		return fieldErr(FieldToken, nil, "does not decode as a Hadoop token (%v); use %q, %q or an encoded container token", err, TokenAuto, TokenNone)
	}
	return nil
}

func checkOverride(kv string) error {
	k, _, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fieldErr(FieldOverrides, strconv.Quote(kv), "want key=value")
	}
	return nil
}

// checkSCMAddr accepts "host" or "host:port" with a port from 1 to 65535 ("[::1]:9860" for IPv6).
func checkSCMAddr(a string) error {
	host, port, hasPort := a, "", false
	if h, p, err := net.SplitHostPort(a); err == nil {
		host, port, hasPort = h, p, true
	} else if strings.Count(a, ":") == 1 || strings.HasPrefix(a, "[") && !strings.HasSuffix(a, "]") {
		return fieldErr(FieldSCM, a, "want host:port, e.g. scm1.example.com:%d", scm.DefaultPort)
	}
	host = strings.Trim(host, "[]")
	if host == "" {
		return fieldErr(FieldSCM, a, "has no host; want host:port, e.g. scm1.example.com:%d", scm.DefaultPort)
	}
	if hasPort { // "host:" has an empty port, not the default one
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return fieldErr(FieldSCM, a, "port %q is not a number from 1 to 65535", port)
		}
	}
	return nil
}

// normalizeSCM splits comma-separated addresses and adds the default port.
func normalizeSCM(in []string) []string {
	var out []string
	for _, a := range in {
		for _, p := range strings.Split(a, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if _, _, err := net.SplitHostPort(p); err != nil {
				p = net.JoinHostPort(strings.Trim(p, "[]"), strconv.Itoa(scm.DefaultPort))
			}
			out = append(out, p)
		}
	}
	return out
}

// ErrNoCluster means the Spec names no SCM and no configuration directory, and $OZONE_CONF_DIR is
// unset. Front ends say how their users give one.
var ErrNoCluster = errors.New("no cluster given: no SCM address, no configuration directory and OZONE_CONF_DIR is unset")
