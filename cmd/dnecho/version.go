package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and revision override the module version and the VCS revision of the build info when
// set at build time: `make build` sets both (scripts/version.sh), the Dockerfile the version
// (-ldflags "-X main.version=v1.2.3 -X main.revision=0123456789ab").
var version, revision string

// buildVersion is the version dnecho reports: -X main.version, else the module version Go stamped
// from the VCS (a tag, or a pseudo-version with the commit and +dirty), else "(devel)"; and the
// revision: -X main.revision, else the VCS revision, shortened, with "-dirty" when the tree had
// changes. Without either (-buildvcs=false, a git worktree, a source tarball) there is no
// revision.
func buildVersion(bi *debug.BuildInfo, verOverride, revOverride string) (ver, rev string) {
	ver = "(devel)"
	if bi != nil && bi.Main.Version != "" {
		ver = bi.Main.Version
	}
	if verOverride != "" {
		ver = verOverride
	}
	if revOverride != "" {
		return ver, revOverride
	}
	if bi == nil {
		return ver, ""
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return ver, rev
}

// dnechoVersion is the version of this binary (see buildVersion).
func dnechoVersion() (ver, rev string) {
	bi, _ := debug.ReadBuildInfo()
	return buildVersion(bi, version, revision)
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
		Long: `Show the version of dnecho in k6's form: "dnecho <version> (commit/<revision>, <go version>, <os>/<arch>)".
The version and revision are those 'make build' set (scripts/version.sh: a vX.Y.Z tag on the
commit, else Go's pseudo-version v0.0.0-<commit time>-<commit>), else those Go stamped from git,
else "(devel)" without a revision.`,
		Args: cobra.NoArgs,
		Run:  func(*cobra.Command, []string) { fmt.Fprintln(s.out, versionLine()) },
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
