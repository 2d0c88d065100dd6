package realozone

import (
	"os"
	"testing"
)

// RequireEnv is the environment variable under which a missing dependency fails a test instead
// of skipping it; .ci/run sets it so that CI cannot pass without the real-component tests.
const RequireEnv = "DNECHO_REQUIRE_DEPS"

// Require skips t with one line when java or mvn is missing, or fails it when RequireEnv is 1.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("real Ozone %s: %v (%s=1)", Version, err, RequireEnv)
		}
		t.Skipf("real Ozone %s: %v", Version, err)
	}
}
