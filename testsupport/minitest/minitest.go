// Package minitest starts a mini cluster for a test: the one starter the tests of echo, xdnecho
// and the CLI share.
package minitest

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// Start starts a mini cluster with options o on 127.0.0.1, writes its configuration
// (minicluster.Cluster.WriteConf) into a temporary directory and returns both; the cluster is
// closed when the test ends. Under -short it skips the test.
func Start(tb testing.TB, o minicluster.Options) (*minicluster.Cluster, string) {
	tb.Helper()
	testdeps.SkipShort(tb, "a mini cluster")
	c, err := minicluster.Start(o)
	if err != nil {
		tb.Fatalf("minicluster.Start: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	dir := tb.TempDir()
	if err := c.WriteConf(dir); err != nil {
		tb.Fatalf("minicluster: write conf: %v", err)
	}
	return c, dir
}
