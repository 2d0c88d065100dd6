// Package minitest starts a mini cluster for a test: the one starter the tests of echo, xdnecho
// and the CLI share.
package minitest

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/scmsim"
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

// HungSCM starts a standalone emulated SCM that hangs like a SIGSTOPped one (it accepts
// connections and never answers; scmsim.SCM.Pause) and returns it; it is closed when the test
// ends. Connections tells when a client has reached it.
func HungSCM(tb testing.TB) *scmsim.SCM {
	tb.Helper()
	s, err := scmsim.New(scmsim.Config{})
	if err == nil {
		s.Pause()
		err = s.Start("")
	}
	if err != nil {
		tb.Fatalf("scmsim: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
