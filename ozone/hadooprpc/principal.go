package hadooprpc

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"
)

// ServerPrincipal is how a Kerberos client checks the principal a server advertises in its
// NEGOTIATE before asking for a ticket, as Hadoop's client does.
// Hadoop: org/apache/hadoop/security/SaslRpcClient.java (getServerPrincipal) and
// org/apache/hadoop/security/SecurityUtil.java (getServerPrincipal, _HOST).
type ServerPrincipal struct {
	// Key names the configuration key, for messages ("hdds.scm.kerberos.principal").
	Key string
	// Configured is the key's value; "_HOST" in its host part becomes the server's canonical
	// host name, lower-cased.
	Configured string
	// Pattern is the value of "<key>.pattern"; when set the advertised principal must match this
	// glob instead of equalling Configured.
	Pattern string
}

// Check compares advertised ("scm/host@REALM") with the configuration for a server dialled at
// addr ("host:port").
func (p ServerPrincipal) Check(advertised, addr string) error {
	if p.Pattern != "" {
		if !globMatch(p.Pattern, advertised) {
			return fmt.Errorf("Server has invalid Kerberos principal: %s, doesn't match the pattern: %s (%s.pattern)", advertised, p.Pattern, p.Key)
		}
		return nil
	}
	if p.Configured == "" {
		return fmt.Errorf("Failed to specify server's Kerberos principal name: set %s", p.Key)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	want := substituteHost(p.Configured, host)
	if name, _, _ := strings.Cut(want, "@"); !strings.Contains(name, "/") {
		return fmt.Errorf("Kerberos principal name does NOT have the expected hostname part: %s (%s)", want, p.Key)
	}
	if advertised != want {
		return fmt.Errorf("Server has invalid Kerberos principal: %s, expecting: %s (%s)", advertised, want, p.Key)
	}
	return nil
}

// substituteHost replaces _HOST when the principal is exactly service/_HOST@REALM.
func substituteHost(principal, host string) string {
	name, realm, ok := strings.Cut(principal, "@")
	svc, h, ok2 := strings.Cut(name, "/")
	if !ok || !ok2 || h != "_HOST" || strings.Contains(realm, "@") {
		return principal
	}
	return svc + "/" + canonicalHost(host) + "@" + realm
}

// canonicalHost is Java's InetAddress.getCanonicalHostName of the server's address, lower-cased:
// the reverse lookup of its IP, else the name as given; the local host name for 0.0.0.0.
func canonicalHost(host string) string {
	if host == "" || host == "0.0.0.0" {
		h, _ := os.Hostname()
		return strings.ToLower(h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ip := host
	if net.ParseIP(host) == nil {
		if ips, err := net.DefaultResolver.LookupHost(ctx, host); err == nil && len(ips) > 0 {
			ip = ips[0]
		}
	}
	if names, err := net.DefaultResolver.LookupAddr(ctx, ip); err == nil && len(names) > 0 {
		return strings.ToLower(strings.TrimSuffix(names[0], "."))
	}
	return strings.ToLower(host)
}

// globMatch is Hadoop's GlobPattern: * and ? match any characters ('/' included), [..] a class,
// {a,b} alternatives. Hadoop: org/apache/hadoop/fs/GlobPattern.java.
func globMatch(glob, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	inClass, inAlt := false, 0
	for _, r := range glob {
		switch {
		case inClass:
			if r == ']' {
				inClass = false
			}
			b.WriteRune(r)
		case r == '*':
			b.WriteString(".*")
		case r == '?':
			b.WriteString(".")
		case r == '[':
			inClass = true
			b.WriteRune(r)
		case r == '{':
			inAlt++
			b.WriteString("(?:")
		case r == '}' && inAlt > 0:
			inAlt--
			b.WriteString(")")
		case r == ',' && inAlt > 0:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
