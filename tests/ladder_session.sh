#!/usr/bin/env bash
# One device call for the kernel ladder, over binaries built here with `make gpu-build` and carried
# as build/ (no rebuild there). Writes under $OUT (at most 8 files come back):
#   tune.txt      tests/ladder_tune: verification at odd sizes and every candidate timed beside cuBLAS
#   sass.txt      per-kernel instruction counts from cuobjdump (no disassembler on the CPU machine)
#   test-gpu.log  make test-gpu (every workload verified, CUPTI counts and timings)
#   bench.log     make bench at BENCH_SIZES (default "2048 4096 8192")
#   run-4096.txt  the text report of a pinned 4096 run (the Ladder section)
#   session.log   the GPU's state before and after
#   tests/ladder_session.sh [all|tune|tests]   (TUNE_S, TEST_S, BENCH_S: time limits per step;
#   the defaults keep the whole call under 300 s)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
what=${1:-all}
gpu_state() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active \
    --format=csv 2>&1
}
{ echo "== $(date -u +%FT%TZ) $what"; gpu_state; } >"$OUT/session.log"

if [ "$what" = all ] || [ "$what" = tune ]; then
  timeout ${TUNE_S:-80} build/tests/ladder_tune >"$OUT/tune.txt" 2>&1
  echo "ladder_tune exit $?" >>"$OUT/tune.txt"
  if command -v cuobjdump >/dev/null; then
    cuobjdump -sass build/tests/ladder_tune build/cuda/ladder_pipelined.o build/cuda/ladder_tf32.o 2>&1 | gzip >"$OUT/sass_full.gz"
    for o in build/cuda/ladder_*.o build/cuda/kernels_basic.o; do
      cuobjdump -sass "$o" | awk -v obj="$(basename "$o")" '
        /Function :/ { if (fn) report(); fn = $3; delete c; total = 0; next }
        /^ +\/\*[0-9a-f]+\*\/ / {
          op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); total++
          split(op, p, "."); base = p[1]
          if (base == "FFMA" || base == "HMMA" || base == "LDSM" || base == "LDGSTS" || base == "BAR" ||
              base == "STL" || base == "LDL" || base == "DEPBAR") c[base]++
          if (base == "LDS" || base == "LDG" || base == "STS" || base == "STG") c[op]++
        }
        function report(  k, s) { s = ""; for (k in c) s = s " " k "=" c[k]; printf "%s %s: %d instr;%s\n", obj, fn, total, s }
        END { if (fn) report() }'
    done >"$OUT/sass.txt" 2>&1
  else
    echo "no cuobjdump on PATH" >"$OUT/sass.txt"
  fi
fi
if [ "$what" = all ] || [ "$what" = tests ]; then
  timeout 25 build/mmprof --size 4096 --host-memory pinned --workloads \
    cuda-naive,cuda-tiled,cuda-blocktile-1d,cuda-blocktile-2d,cuda-vectorized,cuda-warptiled,cuda-pipelined,cuda-tf32-mma,cublas-sgemm,cublas-tf32 \
    >"$OUT/run-4096.txt" 2>&1
  { timeout ${TEST_S:-70} make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
  { BENCH_SIZES=${BENCH_SIZES:-2048 4096 8192} BENCH_PAIRS=3 timeout ${BENCH_S:-110} make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
fi
{ echo "== after"; gpu_state; } >>"$OUT/session.log"
grep -E "FAIL|failure|error" "$OUT/tune.txt" 2>/dev/null | head -20
tail -3 "$OUT/test-gpu.log" 2>/dev/null
grep -E "^(cuda|cublas)|^n = |Wall|collection" "$OUT/bench.log" 2>/dev/null | head -60
