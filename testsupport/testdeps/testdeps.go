// Package testdeps decides what a test does when a real component it needs (a JDK, Maven, an MIT
// KDC, InfluxDB, Prometheus, Chromium) is missing: it skips, unless RequireEnv is 1, when it
// fails. .ci/run sets RequireEnv, so CI cannot pass by skipping the tests against real components.
// SkipShort is the fast tier's one rule: under -short (make test-fast) every test that starts a
// cluster or a real component skips, from the shared helper that starts it.
package testdeps

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the environment variable under which a missing component fails a test instead of
// skipping it.
const RequireEnv = "DNECHO_REQUIRE_DEPS"

// Strict reports whether RequireEnv is 1.
func Strict() bool { return os.Getenv(RequireEnv) == "1" }

// Require ends t when err, why component is unavailable, is not nil: it fails t under RequireEnv=1
// and skips it otherwise, with one line naming the component, err and hint (how to install it;
// may be empty).
func Require(t testing.TB, component string, err error, hint string) {
	t.Helper()
	if err == nil {
		return
	}
	msg := component + ": " + err.Error()
	if hint != "" {
		msg += ": " + hint
	}
	if Strict() {
		t.Fatalf("%s (%s=1)", msg, RequireEnv)
		return
	}
	t.Skip(msg)
}

// RequireTool returns the path of program name on PATH, or ends t as Require does when there is
// none.
func RequireTool(t testing.TB, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Require(t, name, err, hint)
	return p
}

// SkipShort skips t under -short with one line naming what it would start (a mini cluster, a real
// Ozone cluster, a KDC...), so that `go test -short ./...` runs only the tests that start nothing.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts " + what)
	}
}
