#!/usr/bin/env bash
# No figure of a report contradicts another (issue 36): every committed sample rendered as
# tests/render_samples.sh renders it (the JSON report, text, CSV and page), and each output,
# the committed .txt, .csv and .html included, read against the others by
# tests/consistency_check.py, one rule a function (launch counts, kernel time against the wall,
# busy against the verdict, pinned-against-pageable factors, one time origin, the wall-time
# account's sums); then one contradiction planted per rule into a copy of a sample's outputs,
# which that rule, and no other, must catch.
#   tests/consistency.sh BUILD_DIR     (run_tests.sh runs it; prints cmocka-style lines)
set -u
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
tmp=$(mktemp -d /tmp/mmprof-consistency-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

# Every sample's outputs, once for both tests.
tests/render_samples.sh "$bin" "$tmp/out" 2>"$tmp/render.err"
rendered=$?

every_output_of_every_sample_agrees() {
    [ $rendered = 0 ] && [ ! -s "$tmp/render.err" ] || { echo "render_samples.sh: exit $rendered"; cat "$tmp/render.err"; return 1; }
    local n
    n=$(ls "$tmp/out"/*.json | wc -l)
    [ "$n" -ge 22 ] || { echo "only $n samples rendered"; return 1; }
    python3 tests/consistency_check.py "$tmp/out" samples
}

each_rule_catches_its_planted_contradiction() {
    python3 tests/consistency_check.py --plant "$tmp/out"
}

run_test every_output_of_every_sample_agrees
run_test each_rule_catches_its_planted_contradiction
exit $((failed > 0))
