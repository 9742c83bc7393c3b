#!/usr/bin/env bash
# GPU memory collection on any machine (no GPU): tests/memory_probe_main drives the injection
# library's allocation callbacks (tests/host_probe.so, the library's own objects) as CUPTI would
# call them, under `mmprof profile`, into an out-of-memory error, and the run file and the report
# are checked against the program's own account (the JSON it prints): the failed request, the live
# set the library wrote at once (count, bytes, each holder by the function that allocated it), a
# driver call inside a runtime one counted once, a freed allocation gone from the set; the report
# leading with it; a VMM mapping's site under the correlation CUPTI's records of it carry; and
# --no-memory keeping none.
#   tests/test_memory_inject.sh BUILD_DIR   (run_tests.sh runs it; prints cmocka-style lines)
set -u
build=${1:-build}
tmp=$(mktemp -d /tmp/mmprof-memory-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

"$build/mmprof" profile --json "$tmp/oom.json" --text "$tmp/oom.txt" -- "$build/tests/memory_probe_main" \
    "$build/tests/host_probe.so" >"$tmp/own.json" 2>"$tmp/stderr"
status=$?

# The program's exit status is profile's; the run file holds the failure and its live set.
live_set_written() {
    [ "$status" = 1 ] || { echo "exit status $status, not the program's 1"; cat "$tmp/stderr"; return 1; }
    python3 - "$tmp/oom.json" "$tmp/own.json" <<'EOF'
import json, sys
run, own = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
mem = run["memory"]
frames = run["host_activity"]["frames"]
names = mem["names"]
(f,) = mem["failures"]
ts, pid, tid, device, corr, kind, asked, error, api, errname, count, live, untracked, nlive = f
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
check(asked == own["asked"], f"asked {asked}, own {own['asked']}")
check(corr == own["failed_correlation"], f"correlation {corr}, own {own['failed_correlation']}")
check(error == 2 and names[errname] == "cudaErrorMemoryAllocation", f"error {error} {names[errname]}")
check(names[api] == "cudaMalloc", f"api {names[api]}")
check(count == own["live_count"] and live == own["live_bytes"], f"live {count} / {live}, own {own['live_count']} / {own['live_bytes']}")
check(untracked == 0, f"untracked {untracked}")
by = {}
for frame, dev, k, n, b in mem["live"][:nlive]:
    name = frames[frame][5] if frame >= 0 else None
    by[name] = by.get(name, 0) + b
check(by == own["holders"], f"holders {by}, own {own['holders']}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
}

# The report leads with the failure: the request, what was live and its largest holders, by the
# user's line of each (the analysis' holders against the program's own account).
report_leads_with_it() {
    local first
    first=$(sed -n '/^Summary/{n;p}' "$tmp/oom.txt")
    [[ $first == " 1. Out of memory at memory_probe_main.c:"*"(grow_cache): cudaMalloc asked 2.15 GB with 4.03 GB"* ]] ||
        { echo "the summary does not lead with the failure: '$first'"; return 1; }
    python3 - "$tmp/oom.json" "$tmp/own.json" <<'EOF2'
import json, re, sys
run, own = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
(f,) = run["analysis"]["memory"]["failures"]
by = {re.sub(r".*\((\w+)\)$", r"\1", h["at"]): h["bytes"] for h in f["holders"]}
ok = f["out_of_memory"] and f["requested_bytes"] == own["asked"] and f["live_bytes"] == own["live_bytes"] and by == own["holders"]
if not ok:
    print("failure row", json.dumps(f)[:600], "own", own)
sys.exit(0 if ok else 1)
EOF2
}

# A VMM mapping's site under cuMemSetAccess's correlation, the one CUPTI's records of VMM memory
# carry (cuMemCreate's site is the live set's): named by the function that mapped it.
vmm_site_under_set_access() {
    python3 - "$tmp/oom.json" "$tmp/own.json" <<'EOF3'
import json, sys
run, own = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
frames = run["host_activity"]["frames"]
at = [frames[node][5] for pid, corr, node in run["host_activity"]["sites"] if corr == own["access_correlation"]]
if at != ["map_chunk"]:
    print("sites under cuMemSetAccess's correlation %d: %s" % (own["access_correlation"], at))
    sys.exit(1)
EOF3
}

# --no-memory: the library keeps no live set and writes no failure; a run of its own refuses it.
no_memory() {
    "$build/mmprof" profile --no-memory --json "$tmp/off.json" -q -- "$build/tests/memory_probe_main" \
        "$build/tests/host_probe.so" >/dev/null 2>&1
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit("memory" in d)' "$tmp/off.json" ||
        { echo "the run file has memory under --no-memory"; return 1; }
    local out rc
    out=$("$build/mmprof" --no-memory 2>&1)
    rc=$?
    if [ $rc != 2 ] || [[ $out != *"--no-memory sets the GPU memory collection of a program"* ]]; then
        echo "mmprof --no-memory: exit $rc: $out"
        return 1
    fi
}

run_test live_set_written
run_test report_leads_with_it
run_test vmm_site_under_set_access
run_test no_memory
# shellcheck disable=SC2154 # failed: cmocka_lines.sh counts
[ "$failed" -eq 0 ]
