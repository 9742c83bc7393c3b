#!/usr/bin/env bash
# One device call for the host-sampling work (issue 20), over binaries built here:
#   tests/h200_host.sh stage DIR   (here) copy what the GPU machine runs into DIR (build/ and the
#                                  scripts and examples it needs)
#   tests/h200_host.sh run         (there, in DIR) the GPU checker of the examples (streams kept
#                                  under $OUT/keep: the fixtures of tests/data/host/), the no-GPU
#                                  host test on the machine's Python, the training loop's call
#                                  sites by thread (autograd's), and the cost benchmark (in one
#                                  process per mode: tests/bench_host_ab.py)
set -u
step=${1:-run}
if [ "$step" = stage ]; then
  d=${2:?stage DIR}
  rm -rf "$d" && mkdir -p "$d/build/tests" "$d/build/examples" "$d/tests" "$d/examples"
  cp -a build/mmprof build/libmmprof_inject.so build/libmmprof_exit.so build/lib "$d/build/"
  cp -a build/tests/host_probe.so build/tests/host_probe_main "$d/build/tests/"
  cp -a build/examples/host_loop "$d/build/examples/"
  cp -a tests/h200_host.sh tests/host_*.py tests/host_causes_gpu.sh tests/test_host_inject.sh tests/bench_host*.py "$d/tests/"
  cp -a examples/host_gaps.py examples/numba_copies.py examples/torch_train.py "$d/examples/"
  du -sh "$d"; exit 0
fi
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/keep"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; python3 --version; } >"$OUT/machine.txt" 2>&1
if [ "$step" = run2 ]; then # the second call: each example once, streams and accounts kept, no mmprof profile
  for e in "host_loop build/examples/host_loop OWN" "numba python3 examples/numba_copies.py --steps 3 --own OWN"; do
    set -- $e; name=$1; shift; mkdir -p "$OUT/keep/$name"
    CUDA_INJECTION64_PATH=$PWD/build/libmmprof_inject.so NVTX_INJECTION64_PATH=$PWD/build/libmmprof_inject.so \
      MMPROF_PROFILE_DIR=$OUT/keep/$name timeout 60 "${@/OWN/$OUT/keep/$name/own.json}" >>"$OUT/run2.log" 2>&1
    echo "$name exit $?" >>"$OUT/run2.log"
  done
else
echo "== host_causes_gpu"; timeout 240 tests/host_causes_gpu.sh build "$OUT/keep" >"$OUT/causes.log" 2>&1; echo "exit $?"
fi
echo "== test_host_inject"; timeout 60 tests/test_host_inject.sh build >"$OUT/host_inject.log" 2>&1; echo "exit $?"
echo "== train: call sites by thread"
mkdir -p "$OUT/keep/train"
lib=$PWD/build/libmmprof_inject.so
CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib MMPROF_PROFILE_DIR=$OUT/keep/train timeout 120 \
  python3 examples/torch_train.py --steps 8 --own "$OUT/keep/train/own.json" >"$OUT/train.log" 2>&1; echo "exit $?"
python3 - "$OUT/keep/train" >>"$OUT/train.log" 2>&1 <<'PY'
import collections, glob, sys
sys.path.insert(0, "tests")
from host_stream import HostStream
for p in glob.glob(sys.argv[1] + "/*.stream"):
    s = HostStream(p)
    by = collections.Counter()
    for corr, node in s.sites.items():
        a = s.apis.get(corr)
        st = s.stack(node)
        kind = st[0]["kind"] if st else "none"
        user = next((f"{f['function']}:{f['line']}" for f in st if f["kind"] == "py" and "site-packages" not in f["file"]
                     and "/lib/python" not in f["file"]), "-")
        by[(a["tid"] if a else None, s.threads.get(a["tid"]) if a else None, kind, user)] += 1
    print(p, "problems", s.problems[:3], "sampler", s.samplers, "errors", s.errors)
    for k, v in by.most_common(25):
        print(" ", v, k)
    print("  samples by source/state:", collections.Counter((x["source"], x["state"]) for x in s.samples))
PY
[ "$step" = run2 ] && { tar czf "$OUT/keep.tgz" -C "$OUT" keep && rm -rf "$OUT/keep"; }
echo "== bench"; timeout "${BENCH_LIMIT:-200}" python3 tests/bench_host_ab.py build --modes "${BENCH_MODES:-all:40,aa:20,sites:30}" \
  --max-s "$((${BENCH_LIMIT:-200} - 10))" --raw "$OUT/bench_ab.json" >"$OUT/bench.log" 2>&1; echo "exit $?"
tail -5 "$OUT"/*.log
