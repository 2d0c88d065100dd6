package realcluster

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// emulator starts dnecho's emulated cluster with its conf dir, so that a behaviour seen on the
// real cluster can be checked on the emulator the other tests use.
func emulator(t *testing.T, o minicluster.Options) (*minicluster.Cluster, string) {
	t.Helper()
	return minitest.Start(t, o)
}
