#!/usr/bin/env bash
# Prints what `dnecho version` should report for this checkout, for `make build`'s -X flags:
#   scripts/version.sh version    a tag of the form vX.Y.Z on HEAD, else Go's pseudo-version
#                                 v0.0.0-<UTC commit time>-<12 hex of the commit>; +dirty when the
#                                 tree has changes (tracked or not), as Go's own VCS stamp says
#   scripts/version.sh revision   the commit, 12 hex, with -dirty when the tree has changes
# Go stamps the same from git in a plain clone, but not in a git worktree, a source tarball or
# with -buildvcs=false; outside a git checkout this prints nothing and dnecho falls back on the
# build info.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --verify -q HEAD >/dev/null 2>&1 || exit 0
dirty=""
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  dirty=1
fi
case "${1:-}" in
  version)
    tag=$(git tag --points-at HEAD --list 'v[0-9]*.[0-9]*.[0-9]*' | sort -V | tail -n 1)
    if [ -z "$tag" ]; then
      tag=$(TZ=UTC git log -1 --abbrev=12 --format='v0.0.0-%cd-%h' --date=format-local:%Y%m%d%H%M%S HEAD)
    fi
    echo "${tag}${dirty:++dirty}"
    ;;
  revision)
    echo "$(git rev-parse --short=12 HEAD)${dirty:+-dirty}"
    ;;
  *)
    echo "usage: $0 version|revision" >&2
    exit 2
    ;;
esac
