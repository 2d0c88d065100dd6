package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version overrides the module version of the build info when set at build time
// (-ldflags "-X main.version=v1.2.3", as the Dockerfile does).
var version string

// buildVersion is the version dnecho reports: -X main.version, else the module version Go stamped
// from the VCS (a tag, or a pseudo-version with the commit and +dirty), else "(devel)"; and the
// VCS revision, shortened, with "-dirty" when the tree had changes. Without VCS stamping
// (-buildvcs=false, a source tarball) there is no revision.
func buildVersion(bi *debug.BuildInfo, override string) (ver, revision string) {
	ver = "(devel)"
	if bi != nil && bi.Main.Version != "" {
		ver = bi.Main.Version
	}
	if override != "" {
		ver = override
	}
	if bi == nil {
		return ver, ""
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if revision != "" && dirty {
		revision += "-dirty"
	}
	return ver, revision
}

// dnechoVersion is the version of this binary (see buildVersion).
func dnechoVersion() (ver, revision string) {
	bi, _ := debug.ReadBuildInfo()
	return buildVersion(bi, version)
}

// versionLine is what `dnecho version` and `dnecho --version` print, in k6's form:
// "dnecho v1.2.3 (commit/0123456789ab, go1.26.1, linux/amd64)".
func versionLine() string {
	ver, rev := dnechoVersion()
	if rev != "" {
		rev = "commit/" + rev + ", "
	}
	return fmt.Sprintf("dnecho %s (%s%s, %s/%s)", ver, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show the version of dnecho (module version and VCS revision of the build)",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(s.out, versionLine()) },
	}
}

// newGCHelpTopic is `dnecho help gc` (and `dnecho gc --help`): a help topic, not a command.
func newGCHelpTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "How dnecho sets Go's garbage collector (help topic)",
		Long: `Garbage collection: dnecho does not collect while its heap is under 64 MiB (a client's live heap is
a few MB, and collecting it every few MB cost 10-20% of its CPU), or under a quarter of its memory
limit (GOMEMLIMIT or the container's cgroup limit) if that is less. Above that it collects as Go does
by default. Setting GOGC (e.g. GOGC=100) turns this off and leaves the collector to you.
README.md, "Garbage collection", has the details and BENCHMARKS.md the figures.`,
	}
}
