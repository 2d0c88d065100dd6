// Package hostport checks network addresses given as host:port before anything dials them, so
// that a typo fails at once with a message instead of after a dial timeout.
package hostport

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Check accepts "host:port" with a host and a port from 1 to 65535 ("[::1]:6566" for IPv6).
// The error says what is wrong; the caller names the setting.
func Check(addr string) error {
	if strings.Contains(addr, "://") {
		return errors.New("want host:port without a scheme")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, e.g. example.com:6566")
	}
	if host == "" {
		return errors.New("has no host; want host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}
