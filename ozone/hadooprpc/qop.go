package hadooprpc

import (
	"fmt"
	"strings"
)

// QOP is a SASL quality of protection, one value of hadoop.rpc.protection. Its value is the bit
// of the GSSAPI security-layer mask (RFC 4752 §3.3).
type QOP byte

// The three protections. Hadoop: org/apache/hadoop/security/SaslRpcServer.java (QualityOfProtection).
const (
	// QOPAuthentication ("auth"): authentication only, traffic in clear.
	QOPAuthentication QOP = 0x01
	// QOPIntegrity ("auth-int"): every packet carries a keyed checksum.
	QOPIntegrity QOP = 0x02
	// QOPPrivacy ("auth-conf"): every packet is encrypted and checksummed.
	QOPPrivacy QOP = 0x04
)

// String is the hadoop.rpc.protection name.
func (q QOP) String() string {
	switch q {
	case QOPAuthentication:
		return "authentication"
	case QOPIntegrity:
		return "integrity"
	case QOPPrivacy:
		return "privacy"
	}
	return fmt.Sprintf("QOP(%#x)", byte(q))
}

// ParseProtection reads hadoop.rpc.protection values ("authentication", "integrity",
// "privacy"), keeping their order; none means authentication (core-default.xml).
func ParseProtection(values []string) ([]QOP, error) {
	var out []QOP
	for _, v := range values {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "authentication":
			out = append(out, QOPAuthentication)
		case "integrity":
			out = append(out, QOPIntegrity)
		case "privacy":
			out = append(out, QOPPrivacy)
		case "":
		default:
			return nil, fmt.Errorf("hadoop.rpc.protection: %q is not authentication, integrity or privacy", v)
		}
	}
	if len(out) == 0 {
		out = []QOP{QOPAuthentication}
	}
	return out, nil
}

// qopMask ORs the protections into the security-layer mask.
func qopMask(qs []QOP) byte {
	var m byte
	for _, q := range qs {
		m |= byte(q)
	}
	return m
}

// maskString names the protections of a mask, for messages.
func maskString(m byte) string {
	var names []string
	for _, q := range []QOP{QOPAuthentication, QOPIntegrity, QOPPrivacy} {
		if m&byte(q) != 0 {
			names = append(names, q.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}
