package tcpinfo

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// noMinRTT is what tcpi_min_rtt holds before the connection has an RTT sample: the kernel
// resets the windowed-min filter to ~0U (Linux net/ipv4/tcp.c, tcp_init_sock: minmax_reset).
const noMinRTT = ^uint32(0)

func read(c *net.TCPConn) (Info, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return Info{}, fmt.Errorf("tcpinfo: %w", err)
	}
	var ti *unix.TCPInfo
	var serr error
	if err := rc.Control(func(fd uintptr) {
		ti, serr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil {
		return Info{}, fmt.Errorf("tcpinfo: %w", err) // net.ErrClosed once the conn is closed
	}
	if serr != nil {
		return Info{}, fmt.Errorf("tcpinfo: getsockopt TCP_INFO: %w", serr)
	}
	in := Info{
		RTT:          time.Duration(ti.Rtt) * time.Microsecond,
		RTTVar:       time.Duration(ti.Rttvar) * time.Microsecond,
		TotalRetrans: uint64(ti.Total_retrans),
	}
	if ti.Min_rtt != noMinRTT {
		in.MinRTT = time.Duration(ti.Min_rtt) * time.Microsecond
	}
	return in, nil
}
