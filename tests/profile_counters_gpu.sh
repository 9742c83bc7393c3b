#!/usr/bin/env bash
# make test-gpu: `mmprof profile --counters` on a program of known kernels (examples/counter_kernels:
# exact FFMA, FMUL and FADD counts, an in-place kernel the replay must leave as the program made
# it), against the program's own expectations and against Nsight Compute on the same launches;
# then on PyTorch's cuBLAS kernels (launched through cuLaunchKernelEx). Tests in cmocka's format
# for tests/run_tests.sh.
#   tests/profile_counters_gpu.sh BUILD_DIR
set -u
build=${1:-build}
bin="$build/mmprof"
prog="$build/examples/counter_kernels"
here=$(cd "$(dirname "$0")" && pwd)
failed=0
pass() { echo "[       OK ] $1"; }
fail() { echo "[  FAILED  ] $1"; failed=$((failed + 1)); }
skip() { echo "[  SKIPPED ] $1"; }

if ! "$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive >/dev/null 2>&1; then
  echo "[ RUN      ] profile --counters"; echo "no usable GPU"; skip "profile --counters"; exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# 1. Chosen kernels only, at most 5 launches; the program still verifies (exit 0).
name="profile --counters --kernels 'ffma_chain|add_one' --max-kernels 5: the chosen launches, exact counts"
echo "[ RUN      ] $name"
timeout 300 "$bin" profile --counters --kernels 'ffma_chain|add_one' --max-kernels 5 --json "$dir/a.json" \
  --text "$dir/a.txt" -- "$prog" >"$dir/a.out" 2>"$dir/a.err"; r=$?
cat "$dir/a.out" "$dir/a.err"; sed -n '/Hardware counters/,$p' "$dir/a.txt"
if [ $r -eq 0 ] && python3 "$here/profile_counters_check.py" "$dir/a.json" "$dir/a.out" 5 'ffma_chain|add_one'; then
  pass "$name"; else fail "$name (exit $r)"; fi

# 2. Every launch without a limit: 12; the in-place kernel still ends at x0 + 4.
name="profile --counters without --kernels: every launch, the program's results unchanged"
echo "[ RUN      ] $name"
timeout 300 "$bin" profile --counters --json "$dir/b.json" --text /dev/null -- "$prog" >"$dir/b.out" 2>"$dir/b.err"; r=$?
if [ $r -eq 0 ] && python3 "$here/profile_counters_check.py" "$dir/b.json" "$dir/b.out" 12 ''; then
  pass "$name"; else cat "$dir/b.out" "$dir/b.err"; fail "$name (exit $r)"; fi

# 3. The same launches under Nsight Compute: occupancy and throughputs within 5 points, DRAM read
#    within 5% (or 1 MB), FP32 instructions equal.
name="profile --counters agrees with Nsight Compute on the same kernels"
echo "[ RUN      ] $name"
if ! command -v ncu >/dev/null; then
  echo "ncu not on PATH"; skip "$name"
else
  M=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import counters_ncu; print(",".join(counters_ncu.METRICS.values()))' "$here")
  timeout 300 ncu --clock-control none --csv --metrics "$M" "$prog" >"$dir/ncu.csv" 2>"$dir/ncu.err"; r=$?
  if [ $r -eq 0 ] && python3 "$here/profile_counters_check.py" --ncu "$dir/b.json" "$dir/ncu.csv"; then
    pass "$name"; else tail -5 "$dir/ncu.err"; fail "$name (ncu exit $r)"; fi
fi

# 4. PyTorch: cuBLAS's GEMM kernels are found and profiled, the rest are not.
name="profile --counters on PyTorch: cuBLAS GEMM launches profiled"
echo "[ RUN      ] $name"
if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  echo "no PyTorch with CUDA"; skip "$name"
else
  timeout 300 "$bin" profile --counters --kernels 'gemm|GEMM' --max-kernels 3 --json "$dir/t.json" --text "$dir/t.txt" -- \
    python3 -c 'import torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(2048, 2048, device="cuda"); b = torch.randn(2048, 2048, device="cuda")
for _ in range(5): c = a @ b
torch.cuda.synchronize(); print("ok", float(c.sum()))' >"$dir/t.out" 2>"$dir/t.err"; r=$?
  sed -n '/Hardware counters/,$p' "$dir/t.txt"
  if [ $r -eq 0 ] && python3 - "$dir/t.json" <<'PY'
import json, math, re, sys
run = json.load(open(sys.argv[1]))
lc = run["launch_counters"]
names = [k["kernel"] for k in lc]
print("profiled:", names)
ok = len(lc) == 3 and all(re.search("gemm|GEMM", n) for n in names)
flops = [2 * (k["ffma"] or 0) + (k["fadd"] or 0) + (k["fmul"] or 0) for k in lc]
print("FP32 FLOPs executed:", flops, "2n^3 =", 2 * 2048 ** 3)
ok = ok and all(abs(f - 2 * 2048 ** 3) <= 0.01 * 2 * 2048 ** 3 for f in flops)
sys.exit(0 if ok else 1)
PY
  then pass "$name"; else cat "$dir/t.err"; fail "$name (exit $r)"; fi
fi
[ $failed -eq 0 ]
