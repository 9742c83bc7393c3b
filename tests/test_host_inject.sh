#!/usr/bin/env bash
# The injection library's host stacks, on any machine (no GPU): tests/host_probe.so is the
# library's objects with the entry points CUPTI's callbacks would call. A Python program calls
# them with and without the GIL (tests/host_inject_program.py) and a C program without Python
# (tests/host_probe_main); tests/host_inject_check.py checks the streams they wrote: call sites
# at the right function and line (Python, read with and without the GIL; native, named by
# dladdr), Python samples naming the function running and the line sleeping with the thread's
# state, CPU-time samples naming a native function burning CPU, the sampler line; the cost
# benchmark's pause (MMPROF_AB_FILE) stopping and restarting both and the sites.
#   tests/test_host_inject.sh BUILD_DIR   (run_tests.sh runs it; prints cmocka-style lines)
set -u
build=${1:-build}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/mmprof-host-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

python_program() {
    mkdir -p "$tmp/py" && rm -f "$tmp/py"/*
    MMPROF_PROFILE_DIR=$tmp/py MMPROF_SAMPLE_HZ=200 python3 "$dir/host_inject_program.py" "$build/tests/host_probe.so" \
        "$tmp/own.json" || return 1
    python3 "$dir/host_inject_check.py" python "$tmp"/py/*.stream "$tmp/own.json"
}

c_program() {
    mkdir -p "$tmp/c" && rm -f "$tmp/c"/*
    MMPROF_PROFILE_DIR=$tmp/c MMPROF_SAMPLE_HZ=200 "$build/tests/host_probe_main" "$build/tests/host_probe.so" || return 1
    python3 "$dir/host_inject_check.py" c "$tmp"/c/*.stream "$build/tests/host_probe_main"
}

# --no-sample: the sampler line says so and no sample is written; the call site is still taken.
no_sample() {
    mkdir -p "$tmp/off" && rm -f "$tmp/off"/*
    MMPROF_PROFILE_DIR=$tmp/off MMPROF_SAMPLE_HZ=0 "$build/tests/host_probe_main" "$build/tests/host_probe.so" || return 1
    local f=("$tmp"/off/*.stream)
    grep -q $'^sampler\t0\toff\t--no-sample$' "${f[0]}" || { echo "no 'sampler 0 off --no-sample' line"; return 1; }
    ! grep -q $'^sample\t' "${f[0]}" || { echo "samples written with sampling off"; return 1; }
    grep -q $'^site\t7\t' "${f[0]}" || { echo "no call site"; return 1; }
}

# The cost benchmark's pause (MMPROF_AB_FILE): nothing sampled or taken while the file exists, the
# CPU-time timers disarmed; all of it again once it is gone (tests/host_ab_program.py checks).
ab_pause() {
    mkdir -p "$tmp/ab" && rm -f "$tmp/ab"/*
    MMPROF_PROFILE_DIR=$tmp/ab MMPROF_SAMPLE_HZ=200 MMPROF_AB_FILE=$tmp/ab-off python3 "$dir/host_ab_program.py" \
        "$build/tests/host_probe.so"
}

# A Python program that never calls CUDA or NVTX, under `mmprof profile`: sampled from its start
# (libmmprof_exit.so loads the library in the process profile started, exit_hook.c), so its run
# accounts its computing and its sleep at their lines, each within 20% of the program's own clock
# (before, such a program had no samples at all: nothing loaded the library).
python_from_start() {
    local prog=$dir/python_start_program.py
    "$build/mmprof" profile -q --json "$tmp/start.json" -- python3 "$prog" "$tmp/start-own.json" || return 1
    python3 - "$tmp/start.json" "$tmp/start-own.json" "$prog" <<'PY'
import json, sys
run, own = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
lines = open(sys.argv[3]).read().splitlines()
line = {tag: n for n, l in enumerate(lines, 1) for tag in ("the computing line", "the sleeping line") if tag in l}
acc = next(a for a in run["analysis"]["wall_accounts"] if a["scope"] == "run")
ok = True
for state, tag, own_ms in (("cpu", "the computing line", own["compute_ms"]), ("sleep", "the sleeping line", own["sleep_ms"])):
    at = "python_start_program.py:%d " % line[tag]
    ms = sum(c["ms"] for c in acc["host_causes"] if c["state"] == state and c["at"].startswith(at))
    good = abs(ms - own_ms) <= 0.2 * own_ms
    print("  %s   %s at line %d: %.1f ms, the program's own %.1f ms" % ("ok" if good else "FAIL", state, line[tag], ms, own_ms))
    ok &= good
sys.exit(0 if ok else 1)
PY
}

# The streams recorded on the H200 (tests/data/host) still show what the GPU checker asserted
# there: each gap of host_gaps.py named, its launches at their lines; numba's first call in its
# compiler. (host_loop's native frames need the binary that ran there, not kept.)
fixtures() {
    local d=$dir/data/host
    python3 "$dir/host_causes_check.py" gaps "$d/host_gaps.stream" "$d/host_gaps-own.json" &&
        python3 "$dir/host_causes_check.py" numba "$d/numba.stream"
}

run_test python_program
run_test python_from_start
run_test c_program
run_test no_sample
run_test ab_pause
run_test fixtures
[ $failed -eq 0 ]
