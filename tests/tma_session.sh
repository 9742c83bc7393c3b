#!/usr/bin/env bash
# Round 5's device call (the TMA-fed wgmma kernel, cuda/ladder_wgmma_tma.cuh), over binaries
# built here with `make gpu-build` and carried as build/ (nothing is rebuilt there). Every step
# is time-limited: an mbarrier bug hangs the kernel rather than failing it. Writes under $OUT:
#
#   tune.txt         ladder_tune over three candidate sets, each in a process of its own (a hang
#                    or a fault ends only its own set): the TMA candidates "rn" and "tr", the
#                    persistent one, then round 4's kernel beside the workload cuda-tf32-wgmma.
#                    Each verified against FP64 (C poisoned with NaN) at TUNE_VSIZES and timed
#                    beside cuBLAS TF32 at TUNE_SIZES in the same process.
#   session.log,     tests/h200_session.sh nsys: mmprof at 512 under Nsight Systems
#   h200-512-under-nsys.json
#   test-gpu.log,    only when the workload verified in the harness (set "base" exited 0):
#   h200-2048.json,  make test-gpu, the 2048 sample, and mmprof at 4096 with the TF32 workloads
#   run-4096.txt     (kernel, registers, shared memory and occupancy as mmprof reports them)
set -u

OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
VS=${TUNE_VSIZES:-1 17 255 516 1000 2048 4096}
TS=${TUNE_SIZES:-2048 4096 8192}
tune="$OUT/tune.txt"

{ echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv 2>&1; } >"$tune"

# set name, TUNE_ONLY, TUNE_SKIP, time limit in seconds
run_set() {
  echo "=== set $1: TUNE_ONLY='$2' TUNE_SKIP='$3'" >>"$tune"
  TUNE_ONLY="$2" TUNE_SKIP="$3" TUNE_VSIZES="$VS" TUNE_SIZES="$TS" timeout "$4" build/tests/ladder_tune >>"$tune" 2>&1
  local rc=$?
  echo "=== set $1: ladder_tune exit $rc" >>"$tune"
  return $rc
}
run_set tma "tma s4 rn,tma s4 tr" "pers" 30
run_set pers "tma s4 rn pers" "" 30
run_set base "w4 256 tr early,cuda-tf32-wgmma" " nf" 40
base=$?

bash tests/h200_session.sh nsys >/dev/null 2>&1

if [ "$base" -eq 0 ]; then
  timeout 120 make test-gpu >"$OUT/test-gpu.log" 2>&1
  echo "make test-gpu exit $?" >>"$OUT/test-gpu.log"
  { timeout 30 build/mmprof --size 2048 --json "$OUT/h200-2048.json" --quiet; echo "mmprof 2048 exit $?"; } \
    >>"$OUT/session.log" 2>&1
  { timeout 30 build/mmprof --size 4096 --workloads cuda-tf32-mma,cuda-tf32-wgmma,cublas-tf32 --host-memory pinned
    echo "mmprof 4096 exit $?"; } >"$OUT/run-4096.txt" 2>&1
fi

# What the reply shows (its last 12,000 characters).
grep -E "FAIL|rror|exit" "$tune" | head -20
for s in tma pers base; do
  echo "== $s"
  awk -v s="$s" '$0 ~ "=== set " s ":" && /TUNE_ONLY/ {on = 1; next} on && /^summary/ {p = 1} on && p {print}
    $0 ~ "=== set " s ":" && /exit/ {on = 0; p = 0}' "$tune"
done
tail -3 "$OUT/test-gpu.log" 2>/dev/null
tail -12 "$OUT/session.log"
grep -E "tf32|rror|exit|regs|occup" "$OUT/run-4096.txt" 2>/dev/null | head -20
