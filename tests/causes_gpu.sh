#!/usr/bin/env bash
# The cause programs of examples/causes/ profiled on a GPU machine and checked against their own
# accounts (tests/causes_check.py): each keeps the GPU waiting on one cause, and mmprof's account
# of its "work" range must name that cause, its line, and its share within 10 points.
#
#   tests/causes_gpu.sh [BUILD [OUTDIR]]
#
# Runs only binaries `make gpu-build` made (build/mmprof, build/examples/causes/launch); the Python
# programs need PyTorch (numba and SciPy for two of them). Writes each program's run file, text
# report and own account to OUTDIR (default /tmp/mmprof-causes) and prints the check's table last.
set -u
build=${1:-build}
out=${2:-/tmp/mmprof-causes}
mm=$build/mmprof
mkdir -p "$out"
if ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
    echo "causes_gpu: skipped: no PyTorch with a GPU here"
    exit 0
fi
# profile NAME [PROFILE OPTIONS] -- CMD...
profile() {
    local name=$1
    shift
    local t0
    t0=$(date +%s%N)
    timeout 300 "$mm" profile --json "$out/$name.json" --text "$out/$name.txt" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    printf '%-11s exit %d, %d ms\n' "$name" "$rc" $((($(date +%s%N) - t0) / 1000000))
}
cd "$(dirname "$0")/.." || exit 1
for p in input compile imports cuda_init alloc sync checkpoint sleep lock cpu gc_pause; do
    profile "$p" -- python3 "examples/causes/$p.py" --own "$out/$p.own.json"
done
profile launch -- "$build/examples/causes/launch" "$out/launch.own.json" 2.5
profile replay --counters --max-kernels 20 -- "$build/examples/causes/launch" "$out/replay.own.json" 0.2
python3 tests/causes_check.py "$out"
