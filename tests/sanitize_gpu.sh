#!/usr/bin/env bash
# make test-gpu: compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# hand-written kernel (the cuda-* workloads; cuBLAS is not ours to check) at n = 1, 17, 257, 1000:
# sizes that are not multiples of any tile, one that is 1, and one large enough for the TMA path
# of cuda-tf32-wgmma (n % 4 == 0, n >= 256). Each (tool, workload, n) is one test, reported in
# cmocka's format so tests/run_tests.sh counts it. A run passes when the sanitizer reports no
# error and the product verifies (exit 0).
#   tests/sanitize_gpu.sh BUILD_DIR     (SANITIZE_TOOLS, SANITIZE_SIZES, SANITIZE_WORKLOADS narrow it)
set -u
build=${1:-build}
bin="$build/mmprof"
cuda=${CUDA:-/usr/local/cuda}
# The toolkit's own copy, or $COMPUTE_SANITIZER, or one on PATH (Debian/Ubuntu: the
# cuda-sanitizer-13-0 package of NVIDIA's CUDA repository).
san=${COMPUTE_SANITIZER:-}
for c in "$cuda/bin/compute-sanitizer" "$cuda/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer)"; do
  [ -z "$san" ] && [ -n "$c" ] && [ -x "$c" ] && san=$c
done
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
sizes=${SANITIZE_SIZES:-1 17 257 1000}
workloads=${SANITIZE_WORKLOADS:-$("$bin" --list-workloads | awk '$2 == "GPU" && $1 ~ /^cuda-/ { print $1 }')}

if ! "$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive --no-cupti >/dev/null 2>&1; then
  echo "[ RUN      ] compute-sanitizer"; echo "no usable GPU"; echo "[  SKIPPED ] compute-sanitizer"; exit 0
fi
if [ -z "$san" ]; then
  echo "[ RUN      ] compute-sanitizer"; echo "compute-sanitizer not found (in $cuda/bin, $cuda/compute-sanitizer, on PATH; or set COMPUTE_SANITIZER)"; echo "[  FAILED  ] compute-sanitizer"; exit 1
fi
log=$(mktemp)
status=0
for tool in $tools; do
  for w in $workloads; do
    for n in $sizes; do
      name="$tool $w n=$n"
      echo "[ RUN      ] $name"
      # CUPTI stays off (--no-cupti): the sanitizer instruments the kernels itself.
      timeout 900 "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 \
        "$bin" --workloads "$w" --size "$n" --repeat 1 --host-memory pinned --require-gpu --no-cupti \
        --quiet --json /dev/null >"$log" 2>&1
      rc=$?
      # memcheck, synccheck and initcheck end with "ERROR SUMMARY: 0 errors"; racecheck with
      # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" (seen on the H200).
      if [ $rc -eq 0 ] && grep -Eq "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)" "$log"; then
        echo "[       OK ] $name"
      else
        tail -n 30 "$log"
        echo "[  FAILED  ] $name (exit $rc)"
        status=1
      fi
    done
  done
done
rm -f "$log"
exit $status
