package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// SCMNode is one SCM a client may call on the container-location port.
type SCMNode struct {
	// ID is the node id from ozone.scm.nodes.<serviceId>; empty without SCM HA.
	ID   string
	Host string
	Port int
}

// Address is host:port, bracketing IPv6 literals.
func (n SCMNode) Address() string {
	return net.JoinHostPort(n.Host, strconv.Itoa(n.Port))
}

// SCMServiceID returns the SCM HA service id: ozone.scm.default.service.id if set, else the
// only value of ozone.scm.service.ids. It returns "" when SCM HA is not configured, and an
// error when several service ids are listed without a default
// (docs/ozone-scm.md#address-configuration).
func (c *Config) SCMServiceID() (string, error) {
	if id := c.GetTrimmed(KeySCMDefaultServiceID, ""); id != "" {
		return id, nil
	}
	ids := c.GetStrings(KeySCMServiceIDs)
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("config: %s lists %d services (%s) and %s is not set: cannot tell which SCM service to use",
		KeySCMServiceIDs, len(ids), strings.Join(ids, ", "), KeySCMDefaultServiceID)
}

// NamesSCM reports whether c says where SCM is at all: ozone.scm.client.address,
// ozone.scm.names or an SCM HA service (ozone.scm.service.ids, ozone.scm.default.service.id).
// Java's tools build their configuration from the defaults plus -D, so these keys given as
// overrides alone are a whole cluster address; without any of them SCMNodes can only fail, and
// a front end had better say how to name a cluster.
func (c *Config) NamesSCM() bool {
	for _, k := range []string{KeySCMClientAddress, KeySCMNames, KeySCMServiceIDs, KeySCMDefaultServiceID} {
		if c.GetTrimmed(k, "") != "" {
			return true
		}
	}
	return false
}

// SCMAddresses returns the host:port of each of SCMNodes, in the same order.
func (c *Config) SCMAddresses() ([]string, error) {
	nodes, err := c.SCMNodes()
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(nodes))
	for i, n := range nodes {
		addrs[i] = n.Address()
	}
	return addrs, nil
}

// SCMNodes resolves the SCM client (container-location) addresses per
// docs/ozone-scm.md#address-configuration, in configuration order; a client starts
// with the first and fails over round-robin.
//
// With an SCM HA service id the nodes of ozone.scm.nodes.<sid> are used and
// ozone.scm.client.address is ignored, as the Java failover proxy does (the secure-HA
// compose cluster sets both). Without one there is a single node from
// ozone.scm.client.address, else ozone.scm.names.
func (c *Config) SCMNodes() ([]SCMNode, error) {
	sid, err := c.SCMServiceID()
	if err != nil {
		return nil, err
	}
	if sid == "" {
		n, err := c.singleSCM()
		if err != nil {
			return nil, err
		}
		return []SCMNode{n}, nil
	}
	return c.haSCMNodes(sid)
}

func (c *Config) singleSCM() (SCMNode, error) {
	defPort, err := c.GetInt(KeySCMClientPort, DefaultSCMClientPort)
	if err != nil {
		return SCMNode{}, err
	}
	if addr := c.GetTrimmed(KeySCMClientAddress, ""); addr != "" {
		host, port, err := splitHostPort(addr)
		if err != nil {
			return SCMNode{}, fmt.Errorf("config: %s=%q: %w", KeySCMClientAddress, addr, err)
		}
		if port == 0 {
			port = defPort
		}
		return SCMNode{Host: host, Port: port}, nil
	}
	names := c.GetStrings(KeySCMNames)
	switch len(names) {
	case 0:
		return SCMNode{}, fmt.Errorf("config: no SCM address: set %s (or %s), or %s with %s.<id> for SCM HA",
			KeySCMClientAddress, KeySCMNames, KeySCMServiceIDs, strings.TrimSuffix(KeySCMNodesPrefix, "."))
	case 1:
	default:
		return SCMNode{}, fmt.Errorf("config: %s lists %d hosts but SCM HA is not configured (%s); set %s",
			KeySCMNames, len(names), KeySCMServiceIDs, KeySCMClientAddress)
	}
	// A port written in ozone.scm.names is the DataNode port; clients use the client port.
	host, _, err := splitHostPort(names[0])
	if err != nil {
		return SCMNode{}, fmt.Errorf("config: %s=%q: %w", KeySCMNames, names[0], err)
	}
	return SCMNode{Host: host, Port: defPort}, nil
}

func (c *Config) haSCMNodes(sid string) ([]SCMNode, error) {
	nodesKey := KeySCMNodesPrefix + sid
	ids := c.GetStrings(nodesKey)
	if len(ids) == 0 {
		return nil, fmt.Errorf("config: SCM service %q has no nodes: %s is not set", sid, nodesKey)
	}
	defPort, err := c.GetInt(KeySCMClientPort, DefaultSCMClientPort)
	if err != nil {
		return nil, err
	}
	nodes := make([]SCMNode, 0, len(ids))
	for _, id := range ids {
		n, err := c.haSCMNode(sid, id, defPort)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// haSCMNode applies the port precedence of docs/ozone-scm.md#address-configuration: a
// port inside the deprecated ozone.scm.client.address.<sid>.<nid>, else
// ozone.scm.client.port.<sid>.<nid>, else the global client port.
func (c *Config) haSCMNode(sid, id string, defPort int) (SCMNode, error) {
	suffix := sid + "." + id
	addrKey := KeySCMAddressPrefix + suffix
	addr := c.GetTrimmed(addrKey, "")
	if addr == "" {
		return SCMNode{}, fmt.Errorf("config: SCM node %q of service %q has no host: %s is not set", id, sid, addrKey)
	}
	host, _, err := splitHostPort(addr)
	if err != nil {
		return SCMNode{}, fmt.Errorf("config: %s=%q: %w", addrKey, addr, err)
	}
	port, err := c.GetInt(KeySCMClientPortPrefix+suffix, defPort)
	if err != nil {
		return SCMNode{}, err
	}
	if old := c.GetTrimmed(KeySCMClientAddrPrefix+suffix, ""); old != "" {
		_, p, err := splitHostPort(old)
		if err != nil {
			return SCMNode{}, fmt.Errorf("config: %s=%q: %w", KeySCMClientAddrPrefix+suffix, old, err)
		}
		if p != 0 {
			port = p
		}
	}
	return SCMNode{ID: id, Host: host, Port: port}, nil
}

// splitHostPort accepts "host", "host:port", "[v6]" and "[v6]:port"; port 0 means absent.
func splitHostPort(s string) (host string, port int, err error) {
	if h, p, e := net.SplitHostPort(s); e == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return "", 0, fmt.Errorf("invalid port %q", p)
		}
		if h == "" {
			return "", 0, fmt.Errorf("missing host")
		}
		return h, n, nil
	}
	host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if host == "" || strings.ContainsAny(host, "/ ") || (strings.Contains(host, ":") && !strings.HasPrefix(s, "[") && net.ParseIP(host) == nil) {
		return "", 0, fmt.Errorf("not a host or host:port")
	}
	return host, 0, nil
}
