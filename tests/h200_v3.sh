#!/usr/bin/env bash
# Device calls on the H200 for the one-event-store work (and what builds on it), over binaries
# built here with `make gpu-build` and staged into build-gpu/ by `tests/h200_v3.sh stage`
# (carried; the call moves it to build/). What it measures goes to one tarball under $OUT.
#   tests/h200_v3.sh stage     (here) copy what the GPU machine runs into build-gpu/
#   tests/h200_v3.sh record    (there) the samples the report reads (2048, 2048 with counters,
#                              profile of the CUDA C, PyTorch, numba and counter examples), a
#                              PyTorch training loop with backward profiled and traced by
#                              torch.profiler (.json and .json.gz), the examples' checker
#   tests/h200_v3.sh check     (there) test-gpu without compute-sanitizer, the capture tests
#                              where built, and the GPU bench
#   tests/h200_v3.sh redo      (there) record again, and the GPU tests that failed in check
set -u
step=${1:-record}
if [ "$step" = stage ]; then
  rm -rf build-gpu && mkdir -p build-gpu/tests build-gpu/examples
  cp -a build/mmprof build/libmmprof_inject.so build/libmmprof_exit.so build/lib build-gpu/
  for t in test_gpu test_multi_gpu test_profile_gpu bench nvtx_demo; do [ -e build/tests/$t ] && cp -a build/tests/$t build-gpu/tests/; done
  for e in build/examples/*; do [ -x "$e" ] && cp -a "$e" build-gpu/examples/; done
  du -sh build-gpu; exit 0
fi
OUT=${OUT:-/tmp/out}
[ -d build-gpu ] && { rm -rf build && mv build-gpu build; }
S=$OUT/s; mkdir -p "$S"
log=$S/session-$step.log
{ echo "== $(date -u +%FT%TZ) $step"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  ldd build/mmprof | grep -E "not found" || true; } >"$log" 2>&1

if [ "$step" = record ] || [ "$step" = redo ]; then
  { echo "== sample 2048"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --json "$S/h200-2048.json" --color never \
      --trace "$S/h200-2048.trace.json" >"$S/h200-2048.txt"; echo "exit $?"
    echo "== sample 2048 with hardware counters"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --host-memory pinned \
      --counters --json "$S/h200-2048-counters.json" --color never >/dev/null; echo "exit $?"
    echo "== profile: CUDA C example"; build/mmprof profile --json "$S/h200-profile-cuda.json" -q -- \
      build/examples/copies_and_streams "$S/own-cuda.json"; echo "exit $?"
    echo "== profile: PyTorch with NVTX"; PYTHONUNBUFFERED=1 build/mmprof profile --json "$S/h200-profile-torch.json" -q -- \
      python3 examples/torch_nvtx.py --own "$S/own-torch.json"; echo "exit $?"
    echo "== profile: numba"; build/mmprof profile --json "$S/h200-profile-numba.json" -q -- \
      python3 examples/numba_copies.py --own "$S/own-numba.json"; echo "exit $?"
    echo "== profile --counters of examples/counter_kernels"; build/mmprof profile --counters \
      --kernels 'ffma_chain|scale|add_one' --max-kernels 9 --json "$S/h200-profile-counters.json" -q -- \
      build/examples/counter_kernels >"$S/own-counter-kernels.txt"; echo "exit $?"
    echo "== profile: PyTorch training loop, backward on autograd's thread"; PYTHONUNBUFFERED=1 /usr/bin/time -f "wall %e s" \
      build/mmprof profile --json "$S/h200-profile-train.json" --text "$S/h200-profile-train.txt" --color never -- \
      python3 examples/torch_train.py --own "$S/own-train.json"; echo "exit $?"
    echo "== the same loop without mmprof"; /usr/bin/time -f "wall %e s" python3 examples/torch_train.py >/dev/null; echo "exit $?"
    echo "== the same loop under torch.profiler"; PYTHONUNBUFFERED=1 python3 examples/torch_train.py \
      --trace "$S/h200-train.kineto.json" --own "$S/own-train-trace.json" >/dev/null; echo "exit $?"
    python3 examples/torch_train.py --steps 4 --trace /tmp/train.kineto.json.gz >/dev/null && \
      { echo "== import of a .json.gz trace and of a pipe"; build/mmprof import /tmp/train.kineto.json.gz -q --json /tmp/gz.json; echo "exit $?"
        gzip -dc /tmp/train.kineto.json.gz | build/mmprof import - -q --json /tmp/pipe.json; echo "exit $?"; }
    echo "== import of the torch.profiler trace"; build/mmprof import "$S/h200-train.kineto.json" --color never \
      --text "$S/h200-train-import.txt" -q; echo "exit $?"
  } >>"$log" 2>&1
  { echo "== the examples' checker"; timeout 300 tests/profile_examples.sh build; echo "exit $?"; } >"$S/examples.log" 2>&1
fi
if [ "$step" = redo ]; then
  { echo "== the GPU tests that failed or changed since the check step"; SANITIZE_TOOLS=none timeout 300 \
      tests/run_tests.sh --gpu build test_profile_gpu concurrent_gpu.sh counters_gpu.sh capture_gpu.sh; echo "exit $?"; } \
    >"$S/test-gpu.log" 2>&1
fi
if [ "$step" = check ]; then
  { echo "== test-gpu (without compute-sanitizer)"; SANITIZE_TOOLS=none timeout 330 \
      tests/run_tests.sh --gpu build test_gpu test_multi_gpu test_profile_gpu concurrent_gpu.sh counters_gpu.sh \
      profile_counters_gpu.sh ddp_gpu.sh capture_gpu.sh ${EXTRA_GPU_TESTS:-}; echo "exit $?"; } >"$S/test-gpu.log" 2>&1
  [ -n "${SKIP_BENCH:-}" ] || { echo "== bench (GPU part: 2048)"; BENCH_SIZES="2048" MMPROF_BIN=build/mmprof \
      timeout 150 build/tests/bench; echo "exit $?"; } >"$S/bench.log" 2>&1
fi
tail -3 "$S"/*.log
cd "$OUT" && tar czf "h200-$step.tgz" s && rm -rf s
ls -la "$OUT"
