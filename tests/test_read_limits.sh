#!/usr/bin/env bash
# `mmprof report` under a limit on its private memory (ulimit -d: the heap and anonymous maps; a
# spill file's mapping is shared, so it is not counted), no root needed:
#   - a run file whose members other than the events make a large cJSON tree (a sample with
#     300,000 warnings, 14 MB) is refused as too large for the memory, not as broken JSON (cJSON
#     answers NULL for both), with no output written; without the limit it reads;
#   - its text (over spill.h's 8 MiB) lies in a file, not counted by the limit.
#   tests/test_read_limits.sh BUILD_DIR   (run_tests.sh runs it; prints cmocka-style lines)
set -u
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
tmp=$(mktemp -d /tmp/mmprof-limits-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

python3 - "$tmp/warn.json" <<'EOF' || { echo "test_read_limits: cannot make the run file"; exit 1; }
import json, sys
run = json.load(open("samples/h200-profile-train.json"))
run["warnings"] = ["a warning of a long run, number %d" % i for i in range(300000)]
open(sys.argv[1], "w").write(json.dumps(run))
EOF

# report WITH_LIMIT_KB: runs the report of warn.json to out.txt, stderr in err.txt; OpenBLAS, loaded
# with the binary, is held to one thread (its threads' buffers would meet the limit at exit).
report() {
    rm -f "$tmp/out.txt"
    (ulimit -d "$1" && OPENBLAS_NUM_THREADS=1 timeout 60 "$bin" report "$tmp/warn.json" --text "$tmp/out.txt") \
        >/dev/null 2>"$tmp/err.txt"
}

out_of_memory_is_said() {
    report 30000
    local rc=$?
    [ "$rc" = 2 ] || { echo "exit $rc, expected 2: $(cat "$tmp/err.txt")"; return 1; }
    grep -q "run file '$tmp/warn.json': out of memory while reading it" "$tmp/err.txt" ||
        { echo "message: $(cat "$tmp/err.txt")"; return 1; }
    ! grep -q "not valid JSON" "$tmp/err.txt" || return 1
    [ ! -e "$tmp/out.txt" ] || { echo "an output was written"; return 1; }
}

reads_without_the_limit() {
    report unlimited || { echo "exit $?: $(cat "$tmp/err.txt")"; return 1; }
    grep -q "Verdict" "$tmp/out.txt" || { echo "no report in out.txt"; return 1; }
}

run_test out_of_memory_is_said
run_test reads_without_the_limit
exit "$failed"
