package realcluster

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster"
)

// emulator starts dnecho's emulated cluster (minicluster) with its conf dir, so that a behaviour
// seen on the real cluster can be checked on the emulator the other tests use.
func emulator(t *testing.T, o minicluster.Options) (*minicluster.Cluster, string) {
	t.Helper()
	c, err := minicluster.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	return c, dir
}
