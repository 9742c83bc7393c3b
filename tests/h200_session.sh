#!/usr/bin/env bash
# One call on the H200 (through the device tool), over binaries built on the CPU machine with
# `make gpu-build` and carried as build/. Writes what it measured under $OUT (at most 8 files).
#   tests/h200_session.sh smoke     a 2048 run, the fallback, test-gpu, bench, and ncu attached
#   tests/h200_session.sh final     the samples (a 2048 run; 512 runs under nsys and under ncu),
#                                   test-gpu, and bench at 2048, 4096 and 8192
#   tests/h200_session.sh nsys      a 512 run under Nsight Systems that lets mmprof run on after
#                                   the capture range (--capture-range-end=stop; the default,
#                                   stop-shutdown, ends the application)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
step=${1:-smoke}
log="$OUT/session.log"
{
  echo "== $(date -u +%FT%TZ) $step"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  ldd build/mmprof | grep -E "not found|cublas|cupti|openblas|cjson" || true
} >"$log" 2>&1

if [ "$step" = smoke ]; then
  { echo "== wall time of mmprof --size 2048"; /usr/bin/time -v build/mmprof --size 2048 --json "$OUT/run-2048.json" \
      >"$OUT/run-2048.txt" 2>"$OUT/time.txt"; echo "exit $?"; grep -E "Elapsed|Maximum resident" "$OUT/time.txt"; } >>"$log" 2>&1
  { echo "== --no-cupti"; build/mmprof --size 2048 --no-cupti --quiet --json "$OUT/nocupti.json"; echo "exit $?"; } >>"$log" 2>&1
  { echo "== ncu attached"; timeout 120 ncu --clock-control none -k regex:mmprof -c 2 build/mmprof --size 512 \
      --workloads cuda-naive,cuda-tiled --json "$OUT/ncu-run.json" 2>&1 | tail -40; echo "exit ${PIPESTATUS[0]}"; } >>"$log" 2>&1
  { echo "== make test-gpu"; timeout 240 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
  { echo "== make bench"; BENCH_PAIRS=3 timeout 200 make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
fi
if [ "$step" = final ]; then
  { echo "== sample: mmprof --size 2048"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --json "$OUT/h200-2048.json" >/dev/null; echo "exit $?"; } >>"$log" 2>&1
  nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
  { echo "== under nsys ($nsys)"; timeout 120 "$nsys" profile -o /tmp/mmprof-nsys --force-overwrite true \
      --capture-range=cudaProfilerApi -t cuda,nvtx build/mmprof --size 512 --quiet --json "$OUT/h200-512-under-nsys.json" 2>&1 | tail -8
    echo "exit ${PIPESTATUS[0]}"; } >>"$log" 2>&1
  { echo "== under ncu"; timeout 120 ncu --clock-control none -k regex:mmprof_tiled -c 1 build/mmprof --size 512 --quiet \
      --json "$OUT/h200-512-under-ncu.json" 2>&1 | grep -E "==PROF==|mmprof_tiled|Duration|error" | head -8
    echo "exit ${PIPESTATUS[0]}"; } >>"$log" 2>&1
  { echo "== make test-gpu"; timeout 150 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
  { echo "== make bench"; BENCH_SIZES="2048 4096 8192" timeout 200 make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
fi
if [ "$step" = nsys ]; then
  nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
  # nsys cannot turn its .qdstrm into a report there and may then wait; mmprof's own exit status
  # and JSON are what this checks, so nsys gets a short leash.
  { echo "== under nsys ($nsys)"; rm -f /tmp/mmprof-under-nsys.rc
    timeout 60 "$nsys" profile -o /tmp/mmprof-nsys --force-overwrite true --capture-range=cudaProfilerApi \
      --capture-range-end=stop -t cuda,nvtx sh -c 'build/mmprof --size 512 --quiet --json "$0"; echo $? >/tmp/mmprof-under-nsys.rc' \
      "$OUT/h200-512-under-nsys.json" 2>&1 | tail -6
    echo "nsys exit ${PIPESTATUS[0]}; mmprof exit $(cat /tmp/mmprof-under-nsys.rc 2>/dev/null || echo none)"; } >>"$log" 2>&1
fi
rm -f "$OUT/time.txt"
tail -5 "$OUT/test-gpu.log" "$OUT/bench.log" 2>/dev/null
cat "$log" | tail -60
