#!/usr/bin/env bash
# The long-run benchmark on a GPU (issue 23): a minute of a PyTorch training loop profiled whole.
#   tests/long_run_gpu.sh [SECONDS]      (default 60; in the repository root, after make all,
#                                         or with build-gpu/ staged by tests/h200_v4.sh stage)
# Writes under $OUT/long (default /tmp/out/long) and prints a summary (summary.txt):
#   - the loop alone (no profiler): its steps and its own peak RSS (/usr/bin/time);
#   - the loop under `mmprof profile --json long.json`: its steps, the run file's size (and
#     gzip's and zstd's of it), the launcher's own peak RSS (VmHWM of the mmprof process, read
#     from /proc every 50 ms while it runs: the program is a child with its own, which
#     /usr/bin/time on the launcher would fold in through RUSAGE_CHILDREN), and the time from the
#     program's exit (the shell that ran it notes the time) to mmprof's exit with the text report
#     and the run file written;
#   - where mmprof's time after the exit went: its stages (MMPROF_TIMINGS, src/util/stage_times.h);
#   - `mmprof report long.json` alone with --text, --json, --html and --trace: wall time, peak RSS
#     and each output's size (SKIP_REPORTS=1 leaves these out).
# Compare with issue 23's figures (293 MB, 1.69 GB, 8 s) and the goals (10x smaller, memory under
# the program's own, report within 2 s).
set -u
secs=${1:-60}
# A device call carries the staged binaries as build-gpu/ (tests/h200_v4.sh stage); MMPROF_BIN
# (make bench-gpu) names a build and leaves build/ alone.
[ -z "${MMPROF_BIN:-}" ] && [ -d build-gpu ] && { rm -rf build && mv build-gpu build; }
bin=${MMPROF_BIN:-$PWD/build/mmprof}
OUT=${OUT:-/tmp/out}; L=$OUT/long; mkdir -p "$L"
sum=$L/summary.txt; : >"$sum"
say() { echo "$*" | tee -a "$sum"; }
say "== $(date -u +%FT%TZ) long run: ${secs} s of examples/torch_train.py"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$sum" 2>&1

# The loop alone (SKIP_ALONE=1 leaves it out, where another run measured it; ALONE_S=N runs it
# for N seconds instead: its peak RSS hardly depends on the length, its steps do).
[ -n "${SKIP_ALONE:-}" ] || /usr/bin/time -f "%e %M" -o "$L/alone.time" python3 examples/torch_train.py --seconds "${ALONE_S:-$secs}" >"$L/alone.json" 2>"$L/alone.err"
[ -n "${SKIP_ALONE:-}" ] || say "alone: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$L/alone.json" 2>/dev/null) steps; wall, peak RSS (KB): $(cat "$L/alone.time")"

# The loop profiled whole.
rm -f "$L/exit_t" "$L/long.json"
MMPROF_TIMINGS=1 "$bin" profile --json "$L/long.json" -- sh -c \
  'python3 examples/torch_train.py --seconds "$1" --own "$2"; rc=$?; date +%s.%N >"$3"; exit $rc' \
  sh "$secs" "$L/own.json" "$L/exit_t" >"$L/profiled.out" 2>"$L/profiled.err" &
pid=$!
hwm=0
while kill -0 "$pid" 2>/dev/null; do
  v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [ -n "$v" ] && hwm=$v
  sleep 0.05
done
wait "$pid"; rc=$?
end=$(date +%s.%N)
say "profiled: exit $rc, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"])' "$L/own.json" 2>/dev/null) steps"
say "exit to report: $(python3 -c 'import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 3))' "$end" "$(cat "$L/exit_t" 2>/dev/null || echo "$end")") s"
say "mmprof launcher peak RSS (VmHWM, last read within 50 ms of its exit): $((hwm / 1024)) MB"
size=$(stat -c %s "$L/long.json" 2>/dev/null || echo 0)
zs=n/a; command -v zstd >/dev/null && zs=$(zstd -3 -c "$L/long.json" | wc -c)
say "run file: $size bytes; gzip -6: $(gzip -6 -c "$L/long.json" | wc -c) bytes; zstd -3: $zs bytes"
# Written compressed by mmprof itself (an output named .zst), read back by mmprof report.
/usr/bin/time -f "%e %M" -o "$L/zst.time" "$bin" report "$L/long.json" --quiet --json "$L/long.json.zst"
say "report --json long.json.zst: $(stat -c %s "$L/long.json.zst" 2>/dev/null) bytes; wall s, peak RSS KB: $(cat "$L/zst.time")"
python3 - "$L/long.json" <<'EOF' | tee -a "$sum"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["events"]
form = e.get("form", "rows")
def n(k):
    v = e.get(k)
    return len(v["start_ns"]) if isinstance(v, dict) else len(v or [])
print("events (%s): kernels %d, copies %d, memsets %d, apis %d, syncs %d; regions %d" %
      (form, n("kernels"), n("copies"), n("memsets"), n("apis"), n("syncs"), len(d["regions"])))
EOF
grep -i "warning" "$L/profiled.err" | head -5 | tee -a "$sum"
grep "^mmprof: stage" "$L/profiled.err" | tee -a "$sum"
[ -z "${SKIP_REPORTS:-}" ] || exit 0

# The run file reported again, each output alone.
for mode in text json html trace; do
  /usr/bin/time -f "%e %M" -o "$L/report.$mode.time" "$bin" report "$L/long.json" --quiet --$mode "$L/out.$mode" 2>"$L/report.$mode.err"
  say "report --$mode: exit $?; wall s, peak RSS KB: $(cat "$L/report.$mode.time"); output $(stat -c %s "$L/out.$mode" 2>/dev/null) bytes"
  grep -i "warning" "$L/report.$mode.err" | head -3 | tee -a "$sum"
done
