#!/usr/bin/env bash
# GPU memory (issue 37) on a GPU machine: every check that needs one, against the programs' own
# accounts. Builds nothing (make gpu-build here first, then carry build/ there):
#   tests/memory_gpu.sh BUILD_DIR [OUTDIR]
# Runs, each under `mmprof profile` (the run files, texts and the programs' accounts go to OUTDIR,
# a fresh temporary folder when not given, kept):
#   allocators  examples/memory_allocators: cudaMalloc, cudaMallocAsync from a pool, cudaHostAlloc,
#               cudaMallocHost, cudaMallocManaged: the peak of live device bytes within 1% of the
#               program's own, pinned and managed peaks, nothing live at the end, the pool reserved;
#   oom         examples/memory_oom: dies (SIGABRT) of cudaErrorMemoryAllocation: the failed request
#               exactly, the live set within 1% (written at the failure, before the abort), the
#               report's first finding "Out of memory in step N at memory_oom.cu:...";
#   torch_leak  examples/torch_memory.py (PyTorch; expandable_segments off): the records at the
#               peak inside the caching allocator's segments (the program's own, by address) within
#               1% of torch.cuda.max_memory_reserved(), the peak within 1% of that plus what lay
#               outside them (cuBLAS's own cudaMalloc, modules' variables: torch does not count
#               them), the planted leak named with its line and its bytes per step; torch_vmm the
#               same with expandable_segments on (VMM: cuMemCreate and cuMemMap), informational;
#   torch_oom   examples/torch_memory.py --oom: dies of OutOfMemoryError: the request, and the live
#               set within 1% of torch.cuda.memory_reserved() plus the allocations outside its
#               segments then, the report leading with it;
#   kineto      the same loop under torch.profiler (profile_memory=True), imported: the peak equal
#               to the trace's own "Total Allocated" maximum;
#   crash       examples/crash_steps (a GPU-bound loop) SIGKILLed 1 s after its step 300, twice each
#               with the default flush, MMPROF_FLUSH_FORCED=1 (small buffers, default flushes) and
#               MMPROF_FLUSH_FORCED=force (the old forced flush): =1 keeps at least what the
#               default keeps (kernels, median of 2), the others reported;
#   bench       examples/memory_bench: the cost of memory collection, on against paused in one
#               process (MMPROF_AB_ONLY=memory), median over 30 alternating pairs: per launch at
#               most 5%, per allocation (cudaMallocAsync/cudaFreeAsync, cudaMalloc/cudaFree) at
#               most 20%; and, from the run file's API records, how much of the cost per
#               cudaMallocAsync/cudaFreeAsync pair lies inside the calls (CUPTI's own memory
#               records) and how much between them (the library's callbacks), informational.
# Each check prints a JSON line (tests/memory_gpu_check.py); OUTDIR/summary.json has them all, and
# a short table ends the output. About 3 minutes on an H200. Prints cmocka-style lines
# (run_tests.sh --gpu runs it); a check that cannot run (no GPU, no PyTorch) is skipped.
set -u
build=${1:-build}
out=${2:-$(mktemp -d /tmp/mmprof-memory-gpu-XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$build/mmprof
dir=$(cd "$(dirname "$0")" && pwd)
check=$dir/memory_gpu_check.py
: >"$out/summary.jsonl"
failed=0

if ! "$bin" --require-gpu --workloads cuda-naive --size 64 -q >/dev/null 2>&1; then
  for t in allocators oom torch_leak torch_oom kineto crash bench; do
    echo "[ RUN      ] $t"; echo "no usable GPU"; echo "[  SKIPPED ] $t"
  done
  exit 0
fi
torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && torch=1

run_check() { # NAME ARGS... : the checker on ARGS, its lines into the summary
  local name=$1; shift
  echo "[ RUN      ] $name"
  local lines
  lines=$(timeout 300 python3 "$check" "$@")
  local rc=$?
  echo "$lines"
  echo "$lines" | grep '^{' >>"$out/summary.jsonl"
  if [ $rc = 0 ]; then echo "[       OK ] $name"; else echo "[  FAILED  ] $name"; failed=$((failed + 1)); fi
}

profile() { # NAME EXPECTED_STATUS CMD...: mmprof profile of CMD into OUTDIR/NAME.{json,txt}
  local name=$1 want=$2; shift 2
  timeout 300 "$bin" profile --json "$out/$name.json" --text "$out/$name.txt" -- "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  [ "$rc" = "$want" ] || echo "  $name: mmprof profile exited $rc (expected $want): $(tail -3 "$out/$name.err")"
}

profile allocators 0 "$build/examples/memory_allocators" --own "$out/allocators-own.json"
run_check allocators allocators "$out/allocators.json" "$out/allocators-own.json"

profile oom 134 "$build/examples/memory_oom" --own "$out/oom-own.json"
run_check oom oom "$out/oom.json" "$out/oom-own.json" "$out/oom.txt"

if [ $torch = 1 ]; then
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False PYTHONUNBUFFERED=1 \
    profile torch_leak 0 python3 examples/torch_memory.py --own "$out/torch_leak-own.json"
  run_check torch_leak torch_leak "$out/torch_leak.json" "$out/torch_leak-own.json"
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True PYTHONUNBUFFERED=1 \
    profile torch_vmm 0 python3 examples/torch_memory.py --own "$out/torch_vmm-own.json"
  run_check torch_vmm torch_vmm "$out/torch_vmm.json" "$out/torch_vmm-own.json"
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False PYTHONUNBUFFERED=1 \
    profile torch_oom 1 python3 examples/torch_memory.py --own "$out/torch_oom-own.json" --steps 10 --oom
  run_check torch_oom torch_oom "$out/torch_oom.json" "$out/torch_oom-own.json" "$out/torch_oom.txt"
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False timeout 300 python3 examples/torch_memory.py \
    --own "$out/kineto-own.json" --steps 8 --trace "$out/memory.kineto.json" >"$out/kineto.out" 2>&1 ||
    echo "  the traced loop exited $?: $(tail -3 "$out/kineto.out")"
  timeout 300 "$bin" import "$out/memory.kineto.json" --json "$out/kineto.json" --text "$out/kineto.txt" -q
  run_check kineto kineto "$out/kineto.json" "$out/memory.kineto.json" "$out/kineto-own.json"
else
  for t in torch_leak torch_oom kineto; do echo "[ RUN      ] $t"; echo "no PyTorch with CUDA"; echo "[  SKIPPED ] $t"; done
fi

run_check crash crash "$bin" "$build/examples/crash_steps" "$out" 300

MMPROF_AB_FILE=$out/ab-off MMPROF_AB_ONLY=memory \
  profile bench 0 "$build/examples/memory_bench" --out "$out/bench-own.json" --pairs 30
run_check bench bench "$out/bench-own.json" "$out/bench.json"

# The summary, and a short table last.
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(out + "/summary.jsonl") if l.strip()]
json.dump(rows, open(out + "/summary.json", "w"), indent=1)
print("\n%-22s %-4s %-44s %s" % ("check", "ok", "figure", "expected"))
for r in rows:
    print("%-22s %-4s %-44s %s" % (r["name"], "ok" if r["ok"] else "FAIL", str(r["figure"])[:44], str(r["expected"])[:60]))
print("\nrun files, texts and accounts in " + out)
EOF
[ $failed -eq 0 ]
