#!/usr/bin/env bash
# The kernel ladder's device calls, over binaries built here with `make gpu-build` and carried as
# build/ (nothing is rebuilt there).
#
#   tests/ladder_session.sh prep    (here) also build build/mmprof.nowg: mmprof without the
#                                   cuda-tf32-wgmma workload, the fallback should that kernel fail
#   tests/ladder_session.sh all     (there) in order of importance, each step time-limited so the
#                                   call stays under 300 s:
#     tune_wg.txt    the wgmma workload alone through tests/ladder_tune (verification at odd sizes,
#                    timing beside cuBLAS); if it fails or faults, build/mmprof.nowg replaces
#                    build/mmprof for the steps below, and session.log says so
#     tune.txt       every other ladder workload and candidate, verified and timed at 2048/4096/8192
#     test-gpu.log   make test-gpu
#     bench.log      make bench at BENCH_SIZES (default "2048 4096 8192")
#     run-4096.txt   the text report of a pinned 4096 run (the Ladder section)
#     tune_wgc.txt   the other wgmma candidates, then the swapped-descriptor check, each in its own
#                    process (a faulting kernel ends its process's CUDA context)
#     sass.txt       per-kernel instruction counts (cuobjdump; there is none on the CPU machine)
set -u
what=${1:-all}

if [ "$what" = prep ]; then
  objs=$(make --no-print-directory --eval='print-objs: ; @echo $(CORE_OBJ) $(RUN_OBJ) $(CUDA_OBJ)' print-objs)
  flags=$(make --no-print-directory --eval='print-flags: ; @echo $(CPPFLAGS) $(CFLAGS)' print-flags)
  ldflags=$(make --no-print-directory --eval='print-ld: ; @echo $(LDFLAGS)' print-ld)
  libs=$(make --no-print-directory --eval='print-libs: ; @echo $(GPU_LIBS) $(LDLIBS)' print-libs)
  tmp=$(mktemp -d)
  grep -v 'gpu_tf32_wgmma}' src/workloads.c >"$tmp/workloads.c"
  # shellcheck disable=SC2086
  cc $flags -MF /dev/null -c -o "$tmp/workloads.o" "$tmp/workloads.c" &&
    cc $ldflags -o build/mmprof.nowg $(echo "$objs" | sed "s#build/src/workloads.o#$tmp/workloads.o#") $libs &&
    echo "built build/mmprof.nowg"
  rm -rf "$tmp"
  exit 0
fi

OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log="$OUT/session.log"
gpu_state() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active \
    --format=csv 2>&1
}
{ echo "== $(date -u +%FT%TZ) $what"; gpu_state; } >"$log"

# 1. The wgmma workload first, alone: it decides which mmprof the other steps run.
TUNE_ONLY=cuda-tf32-wgmma timeout 25 build/tests/ladder_tune >"$OUT/tune_wg.txt" 2>&1
rc=$?
echo "ladder_tune (wgmma workload) exit $rc" >>"$OUT/tune_wg.txt"
if [ $rc -eq 0 ] && grep -q "^cuda-tf32-wgmma " "$OUT/tune_wg.txt"; then
  echo "wgmma workload verified: build/mmprof keeps it" >>"$log"
else
  echo "wgmma workload failed (exit $rc): build/mmprof.nowg runs the rest" >>"$log"
  cp build/mmprof.nowg build/mmprof
fi

# 2. Every other ladder workload and candidate.
TUNE_SKIP=wg timeout 60 build/tests/ladder_tune >"$OUT/tune.txt" 2>&1
echo "ladder_tune exit $?" >>"$OUT/tune.txt"

# 3. The tool's own GPU tests and benchmark.
{ timeout 60 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1
{ BENCH_SIZES=${BENCH_SIZES:-2048 4096 8192} BENCH_PAIRS=3 timeout 110 make bench; echo "exit $?"; } >"$OUT/bench.log" 2>&1
timeout 15 build/mmprof --size 4096 --host-memory pinned --workloads \
  cuda-vectorized,cuda-warptiled,cuda-pipelined,cuda-tf32-mma,cuda-tf32-wgmma,cublas-sgemm,cublas-tf32 \
  >"$OUT/run-4096.txt" 2>&1

# 4. The other wgmma shapes, then the descriptor check, each in a process of its own.
{ TUNE_ONLY=wg TUNE_SKIP=swapped TUNE_SIZES="4096 8192" timeout 15 build/tests/ladder_tune; echo "exit $?";
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
