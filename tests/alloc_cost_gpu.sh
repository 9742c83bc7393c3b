#!/usr/bin/env bash
# Which of CUPTI's memory record kinds a stream-ordered allocation pays for (issue 37's cost limit:
# at most 20% on a cudaMallocAsync/cudaFreeAsync pair; the H200 measured +143.6% with both on). The
# memory benchmark (examples/memory_bench, memory collection on against paused in one process,
# tests/memory_gpu.sh's bench) once per setting of MMPROF_MEMORY_RECORDS: both kinds, MEMORY2
# alone, MEMORY_POOL alone, none (the allocation calls' callbacks alone). Each setting's records are
# checked too (examples/memory_allocators against its own account): a setting that records nothing
# costs nothing, as MEMORY2 alone seemed to until MEMORY_POOL's disable was found switching CUPTI's
# memory records off with it (docs/memory.md, fourth run).
#   VARIANTS='MEMORY2 none' ASYNC_CALLBACKS=0 tests/alloc_cost_gpu.sh BUILD_DIR OUT_DIR
#   tests/alloc_cost_gpu.sh BUILD_DIR OUT_DIR      (on a GPU machine)
set -u
build=${1:-build} out=${2:-/tmp/alloc-cost}
mkdir -p "$out"
dir=$(cd "$(dirname "$0")" && pwd)
# VARIANTS (default: all four, with the callbacks) picks some; ASYNC_CALLBACKS=0 also turns the
# stream-ordered calls' callbacks off (MMPROF_MEMORY_ASYNC_CALLBACKS).
for kinds in ${VARIANTS:-MEMORY2,MEMORY_POOL MEMORY2 MEMORY_POOL none}; do
  echo "== MMPROF_MEMORY_RECORDS=$kinds MMPROF_MEMORY_ASYNC_CALLBACKS=${ASYNC_CALLBACKS:-1}"
  MMPROF_MEMORY_ASYNC_CALLBACKS=${ASYNC_CALLBACKS:-1} MMPROF_MEMORY_RECORDS=$kinds timeout 100 "$build/mmprof" profile \
    --json "$out/alloc-$kinds.json" -q -- "$build/examples/memory_allocators" --own "$out/alloc-own-$kinds.json" \
    >"$out/alloc-$kinds.out" 2>&1 && python3 "$dir/memory_gpu_check.py" allocators "$out/alloc-$kinds.json" "$out/alloc-own-$kinds.json" |
    grep -E '"allocators.(peak|end)"'
  MMPROF_MEMORY_ASYNC_CALLBACKS=${ASYNC_CALLBACKS:-1} MMPROF_MEMORY_RECORDS=$kinds MMPROF_AB_FILE=$out/ab-off-$kinds MMPROF_AB_ONLY=memory timeout 200 "$build/mmprof" profile \
    --json "$out/bench-$kinds.json" -q -- "$build/examples/memory_bench" --out "$out/bench-own-$kinds.json" --pairs 30 \
    >"$out/bench-$kinds.out" 2>&1 || { echo "profile failed: $(tail -3 "$out/bench-$kinds.out")"; continue; }
  python3 "$dir/memory_gpu_check.py" bench "$out/bench-own-$kinds.json" "$out/bench-$kinds.json" | grep -E 'alloc_async|"bench.alloc"'
done
