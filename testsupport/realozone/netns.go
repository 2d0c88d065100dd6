package realozone

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// NetNS is a network namespace made for one secure cluster. Ozone's certificates never hold a
// loopback address (the DataNodes' CSRs drop them), and the client checks the DataNode's IP
// against the certificate, so TLS to a DataNode on 127.0.0.1 fails; inside the namespace every
// process uses Addr, a non-loopback address on a veth pair that exists only there
// (docs/real-ozone.md, "Secure mode"). Nothing outside the namespace can reach it.
type NetNS struct {
	// Name is the namespace's name (ip netns).
	Name string
	// Addr is the IPv4 address every process in it uses.
	Addr string
}

// CanCreateNetNS reports why network namespaces cannot be made here (nil when they can).
func CanCreateNetNS() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("network namespaces need ip (iproute2)")
	}
	return nil
}

// CreateNetNS makes namespace name with loopback up and addr (a /24 from it) on a veth pair
// whose both ends are inside.
func CreateNetNS(name, addr string) (*NetNS, error) {
	if err := CanCreateNetNS(); err != nil {
		return nil, err
	}
	exec.Command("ip", "netns", "del", name).Run() // a namespace left by a killed run
	steps := [][]string{
		{"netns", "add", name},
		{"-n", name, "link", "set", "lo", "up"},
		{"-n", name, "link", "add", "ozone0", "type", "veth", "peer", "name", "ozone1"},
		{"-n", name, "addr", "add", addr + "/24", "dev", "ozone0"},
		{"-n", name, "link", "set", "ozone0", "up"},
		{"-n", name, "link", "set", "ozone1", "up"},
	}
	ns := &NetNS{Name: name, Addr: addr}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			ns.Delete()
			return nil, fmt.Errorf("ip %s: %v: %s", strings.Join(s, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return ns, nil
}

// Delete removes the namespace (and its veth pair).
func (ns *NetNS) Delete() { exec.Command("ip", "netns", "del", ns.Name).Run() }

// Command runs name inside the namespace (ip netns exec replaces itself with the program, so
// the process's PID is the program's).
func (ns *NetNS) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Listening reports whether addr (host:port) accepts a TCP connection inside the namespace.
func (ns *NetNS) Listening(addr string) bool {
	host, port, _ := strings.Cut(addr, ":")
	return exec.Command("ip", "netns", "exec", ns.Name, "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/%s/%s", host, port)).Run() == nil
}
