package realcluster

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/realkit"
	"github.com/dnecho/dnecho/testsupport/realozone"
)

// binPath is the dnecho binary TestMain builds.
var binPath string

// shared is the one insecure cluster the tests of this package use, started by the first test
// that needs it and stopped by TestMain.
var shared struct {
	once sync.Once
	dir  string
	c    *realozone.Cluster
	err  error
}

func TestMain(m *testing.M) {
	os.Exit(realkit.Main(m, &binPath, "e2e/realcluster", "SCM, OM, 3 DataNodes, RATIS/THREE, insecure", func(code int) bool {
		if shared.c != nil {
			shared.c.Stop()
		}
		if code == 0 {
			os.RemoveAll(shared.dir)
		} else if shared.dir != "" {
			fmt.Fprintf(os.Stderr, "real cluster logs kept in %s/logs\n", shared.dir)
		}
		return shared.c != nil
	}))
}

// cluster returns the shared real cluster, starting it on first use.
func cluster(t *testing.T) *realozone.Cluster {
	t.Helper()
	realozone.Require(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "real-ozone-")
		if shared.err != nil {
			return
		}
		start := time.Now()
		shared.c, shared.err = realozone.Start(context.Background(), realozone.Options{Dir: shared.dir, Progress: realkit.TestLog{T: t}})
		if shared.err == nil {
			fmt.Fprintf(os.Stderr, "real cluster: Apache Ozone %s ready in %.0f s (SCM %s)\n", realozone.Version, time.Since(start).Seconds(), shared.c.SCM)
		}
	})
	if shared.err != nil {
		t.Fatalf("%v", shared.err)
	}
	return shared.c
}

// The helpers every test here uses, from realkit.
type (
	result = realkit.Result
	report = realkit.Report
)

var (
	container   = realkit.Container
	run         = realkit.Run
	javaFreon   = realkit.JavaFreon
	parseReport = realkit.ParseReport
	tail        = realkit.Tail
)

// dnecho runs the dnecho binary.
func dnecho(t *testing.T, limit time.Duration, args ...string) result {
	t.Helper()
	return realkit.Dnecho(t, binPath, limit, args...)
}
