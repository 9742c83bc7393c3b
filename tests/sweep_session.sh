#!/usr/bin/env bash
# The sweep and sampling work on the H200 (one device call), over binaries built on the CPU machine
# with `make gpu-build` and carried as build/. Writes under $OUT (at most 8 files):
#   h200-sweep-64-8192.{json,html,txt}  mmprof --sizes 64:8192 with the default workloads (the
#                                       samples to commit)
#   session.log   the wall time of three `mmprof --size 2048` runs (target: within 3 s) and of the sweep
#   test-gpu.log  make test-gpu (sweep_by_noise_with_cold_l2 among them)
#   bench.log     make bench: throughput, collection cost, run-to-run spread of the cuBLAS 4096
#                 median under --max-noise 0.5 (target below 1%), the same with --cold-l2, wall time
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log="$OUT/session.log"
{
  echo "== $(date -u +%FT%TZ) sweep session"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  for i in 1 2 3; do
    /usr/bin/time -f "mmprof --size 2048: wall %e s" build/mmprof --size 2048 --quiet --json /tmp/wall.json
  done
  echo "== sweep 64:8192"
  /usr/bin/time -f "sweep: wall %e s, max RSS %M KB" build/mmprof --sizes 64:8192 \
      --json "$OUT/h200-sweep-64-8192.json" --html "$OUT/h200-sweep-64-8192.html" >"$OUT/h200-sweep-64-8192.txt"
  echo "exit $?"
  sed -n '/^Sweep/,/^Workloads/p' "$OUT/h200-sweep-64-8192.txt"
} >"$log" 2>&1
{ echo "== make test-gpu"; timeout 180 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
{ echo "== make bench"; BENCH_SIZES="2048 4096" BENCH_PAIRS=3 timeout 240 make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
tail -5 "$OUT/test-gpu.log"
grep -A8 "Run to run" "$OUT/bench.log"
tail -3 "$OUT/bench.log"
cat "$log" | tail -40
