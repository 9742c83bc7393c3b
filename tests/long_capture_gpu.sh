#!/usr/bin/env bash
# Issue 23's long-run figures, on a GPU machine, over binaries built elsewhere (build/):
#   1. tests/long_loop.py unprofiled for PLAIN_S seconds: the loop's step rate (10 s bins);
#   2. the same loop for LONG_S seconds under `mmprof profile --capture-range nvtx:step
#      --capture-count 5`: its step rate against 1 (the cost of profiling with collection off
#      outside the window), the program's peak RSS and the record files' size when the loop ended;
#   3. the same capture on a SHORT_S-second run: the long run should cost no more than the short.
# Each profiled run also gives the run file's size and the time from the loop's end (its own
# account's mtime) to the run file's (the launcher's exit-to-report path, Python's exit included).
# Results: one JSON per run and summary.txt under $OUT/long.
set -u
PLAIN_S=${PLAIN_S:-60} LONG_S=${LONG_S:-300} SHORT_S=${SHORT_S:-30}
BIN=${MMPROF_BIN:-build/mmprof}
O=${OUT:-/tmp/out}/long; mkdir -p "$O"
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "long_capture_gpu: skipped: no PyTorch with CUDA here"; exit 77; }
mtime() { stat -c %.Y "$1"; }
plain() { python3 tests/long_loop.py --seconds "$PLAIN_S" --own "$O/plain-$1.json" >/dev/null; }
captured() { # NAME SECONDS
  /usr/bin/time -f "%e s wall, %M kB max RSS (launcher or program, whichever larger)" -o "$O/$1.time" \
    "$BIN" profile --capture-range nvtx:step --capture-count 5 --json "$O/$1.run.json" -q -- \
    python3 tests/long_loop.py --seconds "$2" --own "$O/$1.own.json" >/dev/null 2>"$O/$1.err"
  echo "exit $?" >>"$O/$1.time"
}
plain a
captured long "$LONG_S"
captured short "$SHORT_S"
plain b
/usr/bin/time -f "%e s wall, %M kB max RSS" -o "$O/report.time" "$BIN" report "$O/long.run.json" --json "$O/long.report.json" -q >/dev/null 2>&1
python3 - "$O" <<'PY' | tee "$O/summary.txt"
import json, os, statistics, sys
o = sys.argv[1]
def own(n): return json.load(open(os.path.join(o, n)))
pa, pb, lo, sh = own("plain-a.json"), own("plain-b.json"), own("long.own.json"), own("short.own.json")
plain_bins = pa["bin_steps_per_s"] + pb["bin_steps_per_s"]
ref = statistics.median(plain_bins)
for name, r in (("long", lo), ("short", sh)):
    bins = r["bin_steps_per_s"]
    med = statistics.median(bins) if bins else r["steps_per_s"]
    run = os.path.join(o, name + ".run.json")
    lag = os.stat(run).st_mtime - os.stat(os.path.join(o, name + ".own.json")).st_mtime
    print(f"{name}: {r['loop_s']:.0f} s, {r['steps']} steps, median {med:.2f} steps/s over {len(bins)} bins "
          f"(min {min(bins):.2f}, max {max(bins):.2f}) vs unprofiled median {ref:.2f} "
          f"(min {min(plain_bins):.2f}, max {max(plain_bins):.2f}): cost {100 * (1 - med / ref):.2f}%; "
          f"program peak RSS {r['maxrss_kb'] / 1024:.0f} MB (unprofiled {pa['maxrss_kb'] / 1024:.0f} MB); "
          f"record files {r['record_bytes']} B; run file {os.path.getsize(run)} B; loop end to run file {lag:.2f} s")
    wins = json.load(open(run)).get("capture", {}).get("windows", [])
    print(f"  {len(wins)} capture windows, " + ", ".join(f"{w.get('began')}-{w.get('ended')}" for w in wins))
    print("  " + open(os.path.join(o, name + ".time")).read().replace("\n", "; "))
print("report of the long run: " + open(os.path.join(o, "report.time")).read().strip())
PY
