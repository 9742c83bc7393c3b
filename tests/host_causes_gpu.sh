#!/usr/bin/env bash
# Host sampling and launch call sites on the examples made for them, on a GPU machine (make
# gpu-build first; PyTorch and numba-cuda installed for the Python ones):
#   tests/host_causes_gpu.sh [BUILD_DIR] [KEEP_DIR]
# Each example runs with the injection library as `mmprof profile` injects it (its variables
# set by hand, so the record streams stay for the checker: tests/host_causes_check.py), then once
# under `mmprof profile` itself (it must end and write its run file). KEEP_DIR: the streams are
# copied there (the fixtures of tests/data/host/ came from such a run).
# Prints cmocka-style lines (run_tests.sh --gpu runs it).
set -u
build=${1:-build}
keep=${2:-}
lib=$(cd "$build" && pwd)/libmmprof_inject.so
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/mmprof-host-causes-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

example() { # NAME MODE CMD... (the checker gets the streams and $tmp/NAME-own.json)
  local name=$1 mode=$2; shift 2
  echo "[ RUN      ] $name"
  mkdir -p "$tmp/$name"
  local ok=1
  CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib MMPROF_PROFILE_DIR=$tmp/$name PYTHONUNBUFFERED=1 \
    timeout 300 "$@" || { echo "  $name exited $?"; ok=0; }
  if [ $ok = 1 ]; then
    if [ "$mode" = numba ]; then python3 "$dir/host_causes_check.py" "$mode" "$tmp/$name" || ok=0
    else python3 "$dir/host_causes_check.py" "$mode" "$tmp/$name" "$tmp/$name-own.json" || ok=0; fi
  fi
  [ -n "$keep" ] && { mkdir -p "$keep/$name"; cp "$tmp/$name"/*.stream "$tmp/$name-own.json" "$keep/$name/" 2>/dev/null; }
  # The same under mmprof profile: it ends, with a run file.
  timeout 300 "$build/mmprof" profile -q --json "$tmp/$name.json" -- "$@" >/dev/null || { echo "  mmprof profile exited $?"; ok=0; }
  [ -s "$tmp/$name.json" ] || { echo "  no run file"; ok=0; }
  if [ $ok = 1 ]; then echo "[       OK ] $name"; else echo "[  FAILED  ] $name"; failed=$((failed + 1)); fi
}

example host_loop loop "$build/examples/host_loop" "$tmp/host_loop-own.json"
if python3 -c 'import torch' 2>/dev/null; then
  example host_gaps gaps python3 examples/host_gaps.py --own "$tmp/host_gaps-own.json"
else echo "[  SKIPPED ] host_gaps: no PyTorch"; fi
if python3 -c 'import numba' 2>/dev/null; then
  example numba numba python3 examples/numba_copies.py --steps 3 --own "$tmp/numba-own.json"
else echo "[  SKIPPED ] numba: no numba"; fi
[ $failed -eq 0 ]
