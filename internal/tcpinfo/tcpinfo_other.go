//go:build !linux

package tcpinfo

import (
	"net"
	"runtime"
)

func read(*net.TCPConn) (Info, error) {
	return Info{}, &UnsupportedError{Reason: "not available on " + runtime.GOOS}
}
