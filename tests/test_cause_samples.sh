#!/usr/bin/env bash
# The cause programs (examples/causes/) as recorded on the H200 (samples/causes: each program's run
# file from `mmprof profile` and its own account of the time its cause took, written by the
# program with its own clock; tests/causes_gpu.sh recorded them, 2026-12-03 16:17 UTC), accounted
# again by this build: each one's top host cause in its "work" range is its own class, at its
# line, with a share within 10 points of its own account, and every account sums to its wall
# (tests/causes_check.py, the GPU test's own checker). launch.cu's run file (4 MB of launches) is
# not kept; its replay under --counters is.
#   tests/test_cause_samples.sh BUILD_DIR   (run_tests.sh runs it; prints cmocka-style lines)
set -u
build=${1:-build}
dir=$(cd "$(dirname "$0")" && pwd)
samples=$dir/../samples/causes
tmp=$(mktemp -d /tmp/mmprof-causes-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$dir/cmocka_lines.sh"

# One test per program, so a failure names it.
cause_program() {
    local name=$1 d=$tmp/$1
    mkdir -p "$d"
    "$build/mmprof" report "$samples/$name.json.xz" -q --json "$d/$name.json" || return 1
    cp "$samples/$name.own.json" "$d/"
    python3 "$dir/causes_check.py" "$d"
}

for own in "$samples"/*.own.json; do
    name=$(basename "$own" .own.json)
    eval "cause_$name() { cause_program $name; }"
    run_test "cause_$name"
done
exit $((failed > 0))
