#!/bin/sh
# Prints the commit a build comes from, for `mmprof --version`: src/cli/commit.sh SOURCE_ROOT
#   $MMPROF_COMMIT when set (`make deb` builds a copy of the tree that has no .git, and passes
#   the commit of the tree it copied); else the 12-digit commit of HEAD, with "-dirty" when a
#   tracked file differs from it or an untracked, not ignored file exists (either may change the
#   build); else "unknown" (a tree without .git, such as an unpacked tarball). A tree unpacked
#   inside some other git repository is not that repository's commit, so the repository's top
#   folder must be SOURCE_ROOT itself.
set -u
root=$1
if [ -n "${MMPROF_COMMIT:-}" ]; then
  echo "$MMPROF_COMMIT"
  exit 0
fi
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || top=
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$root" && pwd -P)" ] \
   || ! commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null); then
  echo unknown
  exit 0
fi
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
echo "$commit"
