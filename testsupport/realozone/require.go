package realozone

import (
	"testing"

	"github.com/dnecho/dnecho/testsupport/testdeps"
)

// RequireEnv is the environment variable under which a missing dependency fails a test instead
// of skipping it; .ci/run sets it so that CI cannot pass without the real-component tests.
const RequireEnv = testdeps.RequireEnv

// Require skips t with one line under -short or when java or mvn is missing, or fails it when
// RequireEnv is 1 (a missing tool only).
func Require(t testing.TB) {
	t.Helper()
	testdeps.SkipShort(t, "a real Ozone cluster")
	testdeps.Require(t, "real Ozone "+Version, Available(), "")
}
