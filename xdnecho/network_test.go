package xdnecho

import (
	"runtime"
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// A Client's session is watched once, however many VUs make the Client: each tick gives every
// DataNode with a connection a dnecho_tcp_rtt sample tagged with it and the Client's tags, pushed
// by the root itself; StopNetwork ends the watch, and the root knows the DataNodes' addresses.
func TestNetworkSamples(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_INFO is read on Linux only")
	}
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, target: 'all', tags: { team: 'x' } });
export default function () { client.echo(); }`, clusterEnv(c))
	vu1, vu2 := rn.vu(t, 1, nil), rn.vu(t, 2, nil)
	for range 3 {
		iterate(t, vu1)
		iterate(t, vu2)
	}
	if got := len(rn.root.net.sessions); got != 1 {
		t.Errorf("%d sessions watched, want 1", got)
	}
	seen := func() map[string]bool {
		dns := map[string]bool{}
		for _, s := range rn.out.ByName(echometrics.TCPRTT) {
			dn, _ := s.Tags.Get(echometrics.TagDataNode)
			if team, _ := s.Tags.Get("team"); team == "x" && s.Value > 0 {
				dns[dn] = true
			}
		}
		return dns
	}
	testwait.Eventually(t, 10*time.Second, "an RTT sample of every DataNode", func() bool { return len(seen()) == 3 })
	rn.root.StopNetwork()
	addr := rn.root.Addrs()
	for _, dn := range c.DataNodes() {
		if !seen()[dn.UUID()] || addr(dn.UUID(), echo.ModeGRPC) != dn.Addr() || addr(dn.UUID(), echo.ModeRatisRead) != "" {
			t.Errorf("DataNode %s (%s): RTT seen %v, address %q (Ratis %q)", dn.UUID(), dn.Addr(), seen()[dn.UUID()],
				addr(dn.UUID(), echo.ModeGRPC), addr(dn.UUID(), echo.ModeRatisRead))
		}
	}
	if n := len(rn.out.ByName(echometrics.TCPRetransmits)); n == 0 {
		t.Error("no dnecho_tcp_retransmits sample")
	}
	// The watch is the session's: its samples carry the run's and the Client's tags, not the
	// scenario of the VU whose call started it.
	for _, s := range rn.out.ByName(echometrics.TCPRTT) {
		if sc, ok := s.Tags.Get("scenario"); ok {
			t.Fatalf("a dnecho_tcp_rtt sample carries scenario=%q", sc)
		}
	}
}
