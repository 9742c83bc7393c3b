#!/usr/bin/env bash
# The kernel ladder's device calls, over binaries built here with `make gpu-build` and carried as
# build/ (nothing is rebuilt there).
#
#   tests/ladder_session.sh         (there) in order of importance, each step time-limited so the
#                                   call stays under 300 s:
#     tune.txt       every ladder workload and candidate but the wgmma ones, verified and timed
#                    at 2048/4096/8192
#     test-gpu.log   make test-gpu
#     bench.log      make bench at BENCH_SIZES (default "2048 4096 8192")
#     run-4096.txt   the text report of a pinned 4096 run (the Ladder section)
#     tune_wgc.txt   the wgmma candidates, then the swapped-descriptor check, each in its own
#                    process (a faulting kernel ends its process's CUDA context)
#     sass.txt       per-kernel instruction counts (cuobjdump; there is none on the CPU machine)
set -u

OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log="$OUT/session.log"
gpu_state() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active \
    --format=csv 2>&1
}
{ echo "== $(date -u +%FT%TZ)"; gpu_state; } >"$log"

# 1. Every ladder workload and candidate but the wgmma ones.
TUNE_SKIP=wg timeout 60 build/tests/ladder_tune >"$OUT/tune.txt" 2>&1
echo "ladder_tune exit $?" >>"$OUT/tune.txt"

# 2. The tool's own GPU tests and benchmark.
{ timeout 60 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
{ BENCH_SIZES=${BENCH_SIZES:-2048 4096 8192} BENCH_PAIRS=3 timeout 110 make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
timeout 15 build/mmprof --size 4096 --host-memory pinned --workloads \
  cuda-vectorized,cuda-warptiled,cuda-pipelined,cuda-tf32-mma,cublas-sgemm,cublas-tf32 \
  >"$OUT/run-4096.txt" 2>&1

# 3. The wgmma candidates, then the descriptor check, each in a process of its own.
{ TUNE_ONLY=wg TUNE_SKIP=swapped TUNE_SIZES="4096 8192" timeout 20 build/tests/ladder_tune; echo "exit $?";
  TUNE_ONLY=swapped TUNE_SIZES=4096 timeout 8 build/tests/ladder_tune; echo "exit $?"; } >"$OUT/tune_wgc.txt" 2>&1

if command -v cuobjdump >/dev/null; then
  for o in build/cuda/ladder_*.o build/cuda/kernels_basic.o; do
    cuobjdump -sass "$o" | awk -v obj="$(basename "$o")" '
      /Function :/ { if (fn) report(); fn = $3; delete c; total = 0; next }
      /^ +\/\*[0-9a-f]+\*\/ / {
        op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); total++
        split(op, p, "."); base = p[1]
        if (base == "FFMA" || base == "HMMA" || base == "HGMMA" || base == "LDSM" || base == "LDGSTS" ||
            base == "BAR" || base == "STL" || base == "LDL" || base == "DEPBAR" || base == "WARPGROUP") c[base]++
        if (base == "LDS" || base == "LDG" || base == "STS" || base == "STG") c[op]++
      }
      function report(  k, s) { s = ""; for (k in c) s = s " " k "=" c[k]; printf "%s %s: %d instr;%s\n", obj, fn, total, s }
      END { if (fn) report() }'
  done >"$OUT/sass.txt" 2>&1
fi
{ echo "== after"; gpu_state; } >>"$log"
cat "$log"
grep -E "FAIL|error|exit" "$OUT"/tune*.txt | head -20
tail -3 "$OUT/test-gpu.log"
grep -E "^n = |^cuda|^cublas|Wall|collection changes" "$OUT/bench.log" | head -60
