#!/usr/bin/env bash
# make test-gpu: mmprof --counters against Nsight Compute (ncu --clock-control none) for the ladder
# kernels and cuBLAS at n = 2048 (COUNTERS_SIZE), the same metrics on the same device call;
# tests/counters_ncu.py compares them, one cmocka test per workload. Also: under ncu, mmprof's
# own counters are off and say so. Needs ncu on PATH and permission to read GPU counters.
#   tests/counters_gpu.sh BUILD_DIR
set -u
build=${1:-build}
bin="$build/mmprof"
n=${COUNTERS_SIZE:-2048}
here=$(dirname "$0")
W=cuda-uncoalesced,cuda-naive,cuda-tiled,cuda-blocktile-1d,cuda-blocktile-2d,cuda-vectorized,cuda-warptiled,cuda-pipelined,cuda-tf32-mma,cuda-tf32-wgmma,cublas-sgemm,cublas-tf32
M=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import counters_ncu; print(",".join(counters_ncu.METRICS.values()))' "$here")
name="mmprof --counters and ncu both ran, n=$n"
echo "[ RUN      ] $name"
if ! "$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive >/dev/null 2>&1; then
  echo "no usable GPU"; echo "[  SKIPPED ] $name"; exit 0
fi
if ! command -v ncu >/dev/null; then echo "ncu not on PATH"; echo "[  FAILED  ] $name"; exit 1; fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
timeout 300 "$bin" --size "$n" --workloads "$W" --host-memory pinned --counters --quiet --json "$dir/run.json" 2>"$dir/run.err"
r1=$?
timeout 300 ncu --clock-control none --print-kernel-base mangled --csv --metrics "$M" "$bin" --size "$n" --workloads "$W" --host-memory pinned \
  --repeat 1 --counters --quiet --json "$dir/under.json" >"$dir/ncu.csv" 2>"$dir/ncu.err"
r2=$?
cat "$dir/run.err"; tail -3 "$dir/ncu.err"
if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || ! grep -q '"counters"' "$dir/run.json"; then
  echo "mmprof exit $r1, ncu exit $r2"; echo "[  FAILED  ] $name"; exit 1
fi
echo "[       OK ] $name"
name="under ncu, mmprof's counters are off and say so"
echo "[ RUN      ] $name"
if python3 -c 'import json, sys; w = json.load(open(sys.argv[1]))["counters"]["why"] or ""; print(w); sys.exit(0 if w.startswith("counters off") else 1)' "$dir/under.json"; then
  echo "[       OK ] $name"
else
  echo "[  FAILED  ] $name"
fi
python3 "$here/counters_ncu.py" "$dir/run.json" "$dir/ncu.csv"
