#!/usr/bin/env bash
# Diagnostic on a GPU machine: the per-process streams of a PyTorch program with multiprocessing
# workers, run with the injection as `mmprof profile` sets it up, kept for reading: which lines
# each worker's stream has (cuda, exit, error) and how many kernels.
#   tests/h200/worker_streams.sh BUILD_DIR OUT_DIR
set -u
build=$(cd "${1:-build}" && pwd); out=${2:-/tmp/streams}; mkdir -p "$out"
CUDA_INJECTION64_PATH=$build/libmmprof_inject.so NVTX_INJECTION64_PATH=$build/libmmprof_inject.so \
  MMPROF_PROFILE_DIR=$out LD_PRELOAD=$build/libmmprof_exit.so \
  python3 examples/torch_nvtx.py --steps 5 --n 1024 --workers 2 --own "$out/own.json"
echo "exit $?"
for f in "$out"/*.stream; do
  echo "== $f: $(grep -c '^kernel' "$f") kernels, $(grep -c '^copy' "$f") copies"
  grep -E '^(process|cuda|exit|error)' "$f" | cut -c1-200
done
