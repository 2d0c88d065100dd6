package config

import (
	"fmt"
	"net"
	"strconv"
)

// FreonHTTPAddress is where `ozone freon --server` listens, as Ozone's BaseHttpServer picks it:
// the host of ozone.freon.http-bind-host, else of ozone.freon.http-address, else 0.0.0.0; the
// port of ozone.freon.http-address (0: any free port), else 9884 (apache/ozone:
// hadoop-hdds/framework/src/main/java/org/apache/hadoop/hdds/server/http/BaseHttpServer.java,
// getHttpBindAddress).
func (c *Config) FreonHTTPAddress() (host string, port int, err error) {
	host, port = DefaultFreonHTTPBindHost, DefaultFreonHTTPPort
	if addr := c.GetTrimmed(KeyFreonHTTPAddress, ""); addr != "" {
		if host, port, err = listenAddress(addr, port); err != nil {
			return "", 0, fmt.Errorf("config: %s=%q: %w", KeyFreonHTTPAddress, addr, err)
		}
	}
	if bind := c.GetTrimmed(KeyFreonHTTPBindHost, ""); bind != "" {
		host = bind
	}
	return host, port, nil
}

// listenAddress reads "host", "host:port" or "[v6]:port" for a server to listen on: unlike a
// client's address, port 0 (any free port) is allowed; defPort when none is written.
func listenAddress(s string, defPort int) (string, int, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		h, _, err := splitHostPort(s)
		return h, defPort, err
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("invalid port %q", p)
	}
	return h, n, nil
}
