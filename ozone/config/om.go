package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Ozone Manager keys (apache/ozone: hadoop-ozone/common/src/main/java/org/apache/hadoop/ozone/om/
// OMConfigKeys.java; defaults from ozone-default.xml). A secure freon asks the OM for the CA
// certificates that signed the DataNodes' TLS certificates.
const (
	KeyOMAddress               = "ozone.om.address"
	KeyOMServiceIDs            = "ozone.om.service.ids"
	KeyOMNodesPrefix           = "ozone.om.nodes."   // + serviceID
	KeyOMAddressPrefix         = "ozone.om.address." // + serviceID.nodeID
	DefaultOMPort              = 9862
	KeyOMKerberosPrincipal     = "ozone.om.kerberos.principal"
	DefaultOMKerberosPrincipal = "OM/_HOST@REALM"
	// KeyOMClientRetryWait is the pause between OM attempts (ozone.client.wait.between.retries.millis).
	KeyOMClientRetryWait     = "ozone.client.wait.between.retries.millis"
	DefaultOMClientRetryWait = 2000
	// KeyOMClientMaxFailovers bounds OM failovers (ozone.client.failover.max.attempts).
	KeyOMClientMaxFailovers     = "ozone.client.failover.max.attempts"
	DefaultOMClientMaxFailovers = 500
	// PrincipalPatternSuffix turns a principal key into its pattern key (Hadoop's SaslRpcClient
	// reads "<key>.pattern").
	PrincipalPatternSuffix = ".pattern"
)

// OMNode is one Ozone Manager a client may call.
type OMNode struct {
	// ID is the node id from ozone.om.nodes.<serviceId>; empty without OM HA.
	ID   string
	Host string
	Port int
}

// Address is host:port.
func (n OMNode) Address() string { return net.JoinHostPort(n.Host, strconv.Itoa(n.Port)) }

// OMNodes resolves the OM addresses as freon's OM client does: the nodes of the single
// ozone.om.service.ids service (ozone.om.nodes.<sid>, ozone.om.address.<sid>.<node>), else
// ozone.om.address. Ports default to 9862.
// Ozone: hadoop-ozone/freon/.../BaseFreonGenerator.java (createOmClient), OmUtils.java.
func (c *Config) OMNodes() ([]OMNode, error) {
	ids := c.GetStrings(KeyOMServiceIDs)
	switch len(ids) {
	case 0:
		addr := c.GetTrimmed(KeyOMAddress, "")
		if addr == "" {
			return nil, fmt.Errorf("config: no Ozone Manager address: set %s (or %s with %s<id>)", KeyOMAddress, KeyOMServiceIDs, KeyOMNodesPrefix)
		}
		n, err := omNode("", KeyOMAddress, addr)
		if err != nil {
			return nil, err
		}
		return []OMNode{n}, nil
	case 1:
	default:
		return nil, fmt.Errorf("config: %s lists %d OM services (%s): cannot tell which to use", KeyOMServiceIDs, len(ids), strings.Join(ids, ", "))
	}
	sid := ids[0]
	nodeIDs := c.GetStrings(KeyOMNodesPrefix + sid)
	if len(nodeIDs) == 0 {
		return nil, fmt.Errorf("config: OM service %q has no nodes: %s%s is not set", sid, KeyOMNodesPrefix, sid)
	}
	var out []OMNode
	for _, id := range nodeIDs {
		key := KeyOMAddressPrefix + sid + "." + id
		addr := c.GetTrimmed(key, "")
		if addr == "" {
			return nil, fmt.Errorf("config: OM node %q of service %q has no address: %s is not set", id, sid, key)
		}
		n, err := omNode(id, key, addr)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func omNode(id, key, addr string) (OMNode, error) {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return OMNode{}, fmt.Errorf("config: %s=%q: %w", key, addr, err)
	}
	if port == 0 {
		port = DefaultOMPort
	}
	return OMNode{ID: id, Host: host, Port: port}, nil
}
