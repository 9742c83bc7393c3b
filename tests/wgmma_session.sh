#!/usr/bin/env bash
# The wgmma TF32 kernel's device call (round 4), over binaries built here with `make gpu-build`
# and carried as build/ (nothing is rebuilt there). About 150 s; every step is time-limited.
#
#   sass.txt        per-kernel instruction counts of the wgmma workload (HGMMA, WARPGROUP waits,
#                   local memory), from cuobjdump (there is none on the CPU machine)
#   tune_1.txt      ladder_tune over the candidates in SET1 (TUNE_ONLY, minus SKIP1),
#   tune_2.txt      then over SET2, each set in a process of its own (a faulting kernel ends its
#                   process's CUDA context); verified against FP64 at TUNE_VSIZES, timed beside
#                   cuBLAS TF32 at TUNE_SIZES. The first call ran SET1=" ns,tf32-mma,wg256x128
#                   k32 s4" and SET2=" sw,tf32-wgmma" (SKIP2=swapped).
#   run-4096.txt    mmprof's text report: cuda-tf32-mma, cuda-tf32-wgmma, cublas-tf32, pinned;
#                   also for each build/alt_*/mmprof there (the workload's kernel set to another
#                   configuration, built by hand), cuda-tf32-wgmma and cublas-tf32
#   test-gpu.log    make test-gpu
set -u

OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log="$OUT/session.log"
gpu_state() {
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active \
    --format=csv 2>&1
}
{ echo "== $(date -u +%FT%TZ)"; gpu_state; } >"$log"

if command -v cuobjdump >/dev/null; then
  for o in build/cuda/ladder_tf32_wgmma.o build/alt_*/wg.o; do [ -f "$o" ] && echo "== $o" && cuobjdump -sass "$o" | awk '
    /Function :/ { if (fn) report(); fn = $3; delete c; total = 0; next }
    /^ +\/\*[0-9a-f]+\*\/ / {
      line = $0; op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); total++
      split(op, p, "."); base = p[1]
      if (base == "HGMMA" || base == "LDGSTS" || base == "BAR" || base == "STL" || base == "LDL" ||
          base == "DEPBAR" || base == "LDS" || base == "STS" || base == "STG") c[base]++
      if (op ~ /^WARPGROUP/) { s = line; sub(/^.*WARPGROUP/, "WARPGROUP", s); sub(/;.*$/, "", s); gsub(/ /, "_", s); c[s]++ }
    }
    function report(  k, s) { s = ""; for (k in c) s = s " " k "=" c[k]; printf "%s: %d instr;%s\n", fn, total, s }
    END { if (fn) report() }'; done >"$OUT/sass.txt" 2>&1
  cuobjdump -sass build/cuda/ladder_tf32_wgmma.o | grep -E "HGMMA|WARPGROUP|BAR.SYNC|DEPBAR" | head -80 >"$OUT/sass_hgmma.txt"
fi

VS=${TUNE_VSIZES:-1 17 33 255 257 1000 1023 2048 4096}
TS=${TUNE_SIZES:-2048 4096 8192}
SET1=${SET1:-w4 ,sw trunc,tf32-} SKIP1=${SKIP1:-sw64,swapped}
SET2=${SET2:-sw64} SKIP2=${SKIP2:-swapped}
TUNE_ONLY="$SET1" TUNE_SKIP="$SKIP1" TUNE_VSIZES="$VS" TUNE_SIZES="$TS" timeout 60 build/tests/ladder_tune \
  >"$OUT/tune_1.txt" 2>&1
echo "ladder_tune exit $?" >>"$OUT/tune_1.txt"
TUNE_ONLY="$SET2" TUNE_SKIP="$SKIP2" TUNE_VSIZES="$VS" TUNE_SIZES="$TS" timeout 60 build/tests/ladder_tune \
  >"$OUT/tune_2.txt" 2>&1
echo "ladder_tune exit $?" >>"$OUT/tune_2.txt"

timeout 20 build/mmprof --size 4096 --workloads cuda-tf32-mma,cuda-tf32-wgmma,cublas-tf32 --host-memory pinned \
  >"$OUT/run-4096.txt" 2>&1
echo "mmprof exit $?" >>"$OUT/run-4096.txt"
for d in build/alt_*; do
  [ -x "$d/mmprof" ] || continue
  { echo "== $d"; timeout 15 "$d/mmprof" --size 4096 --workloads cuda-tf32-wgmma,cublas-tf32 --host-memory pinned;
    echo "mmprof exit $?"; } >>"$OUT/run-4096.txt" 2>&1
done
{ timeout 60 make test-gpu; echo "exit $?"; } >"$OUT/test-gpu.log" 2>&1

{ echo "== after $(date -u +%FT%TZ)"; gpu_state; } >>"$log"
cat "$log"
cat "$OUT/sass.txt" 2>/dev/null
grep -E "FAIL|error" "$OUT"/tune_*.txt | head -10
tail -4 "$OUT/test-gpu.log"
grep -E "^== |tf32-wgmma +pinned +[0-9]|tf32-mma +pinned +[0-9]|cublas-tf32 +pinned +[0-9]|exit|rror" \
  "$OUT/run-4096.txt" | head -24
for f in tune_1 tune_2; do echo "== $f"; sed -n '/^summary/,$p' "$OUT/$f.txt"; tail -1 "$OUT/$f.txt"; done
