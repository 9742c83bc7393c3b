#!/usr/bin/env bash
# One device call on the H200 for the run-model-v2 work, over binaries built here with
# `make gpu-build` and staged by `tests/h200_v2.sh stage` into build-gpu/ (carried; the call moves
# it to build/). Everything it measures goes to one tarball under $OUT.
#   tests/h200_v2.sh stage       (here) copy what the GPU machine runs into build-gpu/
#   tests/h200_v2.sh main        (there) samples, profiles, sweep, test-gpu, bench (SKIP_BENCH=1: not)
#   tests/h200_v2.sh sanitize    (there) compute-sanitizer over every hand-written kernel
#   tests/h200_v2.sh final       (there, 2 GPUs) the samples the reports changed, test-gpu, bench:
#                                a short session (no sweep, profiles, ncu/nsys runs, overhead)
#   tests/h200_v2.sh counters    (there) the hardware-counter samples (built-in and profile
#                                --counters), the counter tests against ncu, bench
set -u
step=${1:-main}
if [ "$step" = stage ]; then
  rm -rf build-gpu && mkdir -p build-gpu/tests build-gpu/examples
  cp -a build/mmprof build/libmmprof_inject.so build/libmmprof_exit.so build/lib build-gpu/
  for t in test_gpu test_multi_gpu test_profile_gpu bench nvtx_demo; do [ -e build/tests/$t ] && cp -a build/tests/$t build-gpu/tests/; done
  cp -a build/examples/copies_and_streams build/examples/counter_kernels build-gpu/examples/
  du -sh build-gpu; exit 0
fi
OUT=${OUT:-/tmp/out}
rm -rf build && mv build-gpu build
S=$OUT/s; mkdir -p "$S"
log=$S/session.log
{ echo "== $(date -u +%FT%TZ) $step"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  ldd build/mmprof | grep -E "not found" || true; } >"$log" 2>&1

if [ "$step" = main ]; then
  { echo "== default run wall time (mmprof --size 2048 --html), 3 runs"
    for i in 1 2 3; do /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --html /tmp/w$i.html -q; done; } >>"$log" 2>&1
  { echo "== sample 2048"; build/mmprof --size 2048 --json "$S/h200-2048.json" --html "$S/h200-2048.html" \
      --trace "$S/h200-2048.trace.json" --csv "$S/h200-2048.csv" --color never >"$S/h200-2048.txt"; echo "exit $?"; } >>"$log" 2>&1
  { echo "== sample 2048 with hardware counters"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --host-memory pinned \
      --counters --json "$S/h200-2048-counters.json" --html "$S/h200-2048-counters.html" --color never \
      >"$S/h200-2048-counters.txt"; echo "exit $?"; } >>"$log" 2>&1
  { echo "== under ncu"; timeout 120 ncu --clock-control none -k regex:mmprof_tiled -c 1 build/mmprof --size 512 --quiet \
      --json "$S/h200-512-under-ncu.json" 2>&1 | grep -E "==PROF==|error" | head -5; echo "exit ${PIPESTATUS[0]}"; } >>"$log" 2>&1
  nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
  { echo "== under nsys"; timeout 60 "$nsys" profile -o /tmp/mmprof-nsys --force-overwrite true --capture-range=cudaProfilerApi \
      --capture-range-end=stop -t cuda,nvtx sh -c 'build/mmprof --size 512 --quiet --json "$0"; echo $? >/tmp/rc' \
      "$S/h200-512-under-nsys.json" 2>&1 | tail -3; echo "mmprof exit $(cat /tmp/rc 2>/dev/null)"; } >>"$log" 2>&1
  { echo "== profile: CUDA C example"; build/mmprof profile --json "$S/h200-profile-cuda.json" --html "$S/h200-profile-cuda.html" \
      --text "$S/h200-profile-cuda.txt" -- build/examples/copies_and_streams "$S/own-cuda.json"; echo "exit $?"
    echo "== profile: PyTorch with NVTX"; PYTHONUNBUFFERED=1 build/mmprof profile --json "$S/h200-profile-torch.json" \
      --html "$S/h200-profile-torch.html" --text "$S/h200-profile-torch.txt" -- python3 examples/torch_nvtx.py \
      --own "$S/own-torch.json"; echo "exit $?"
    echo "== profile: numba"; build/mmprof profile --json "$S/h200-profile-numba.json" --html "$S/h200-profile-numba.html" \
      --text "$S/h200-profile-numba.txt" -- python3 examples/numba_copies.py --own "$S/own-numba.json"; echo "exit $?"
    echo "== profile examples checker"; timeout 240 tests/profile_examples.sh build; echo "exit $?"; } >>"$log" 2>&1
  { echo "== sweep 64:8192"; /usr/bin/time -f "wall %e s" build/mmprof --sizes 64:8192 --json "$S/h200-sweep-64-8192.json" \
      --html "$S/h200-sweep-64-8192.html" --color never >"$S/h200-sweep-64-8192.txt"; echo "exit $?"; } >>"$log" 2>&1
  { echo "== make test-gpu (without compute-sanitizer: its own call)"; SANITIZE_TOOLS=none timeout 400 \
      tests/run_tests.sh --gpu build test_gpu test_profile_gpu concurrent_gpu.sh counters_gpu.sh; echo "exit $?"; } >"$S/test-gpu.log" 2>&1
  [ -n "${SKIP_BENCH:-}" ] || { echo "== make bench"; BENCH_SIZES="2048 4096" MMPROF_BIN=build/mmprof timeout 300 build/tests/bench; echo "exit $?"
    echo "== cost of being profiled"; timeout 200 python3 tests/h200/profile_overhead.py build 5; echo "exit $?"; } >"$S/bench.log" 2>&1
fi
if [ "$step" = final ]; then
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  { echo "== default run wall time (mmprof --size 2048 --html), 3 runs"
    for i in 1 2 3; do /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --html /tmp/w$i.html -q; done
    echo "== sample 2048"; build/mmprof --size 2048 --json "$S/h200-2048.json" --html "$S/h200-2048.html" \
      --trace "$S/h200-2048.trace.json" --csv "$S/h200-2048.csv" --color never >"$S/h200-2048.txt"; echo "exit $?"
    echo "== sample 2048 with hardware counters"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --host-memory pinned \
      --counters --json "$S/h200-2048-counters.json" --html "$S/h200-2048-counters.html" --color never \
      >"$S/h200-2048-counters.txt"; echo "exit $?"
    echo "== sample --devices all 2048"; /usr/bin/time -f "wall %e s" build/mmprof --devices all --size 2048 \
      --json "$S/h200x2-devices-2048.json" --html "$S/h200x2-devices-2048.html" --color never >"$S/h200x2-devices-2048.txt"
    echo "exit $?"; xz -9 -f "$S/h200x2-devices-2048.json"
    [ -z "${FINAL_EXTRA:-}" ] || { echo "== extra: $FINAL_EXTRA"; timeout 120 bash -c "$FINAL_EXTRA"; echo "exit $?"; }
  } >>"$log" 2>&1
  { echo "== test-gpu (without compute-sanitizer)"; SANITIZE_TOOLS=none timeout 300 \
      tests/run_tests.sh --gpu build test_gpu test_multi_gpu test_profile_gpu concurrent_gpu.sh counters_gpu.sh ${FINAL_GPU_TESTS:-}
    echo "exit $?"; } >"$S/test-gpu.log" 2>&1
  { echo "== make bench (GPU part: 2048 4096, the counter pass included)"; BENCH_SIZES="2048 4096" MMPROF_BIN=build/mmprof \
      timeout 150 build/tests/bench; echo "exit $?"; } >"$S/bench.log" 2>&1
fi
if [ "$step" = counters ]; then
  { echo "== sample 2048 with hardware counters"; /usr/bin/time -f "wall %e s" build/mmprof --size 2048 --host-memory pinned \
      --counters --json "$S/h200-2048-counters.json" --html "$S/h200-2048-counters.html" --color never \
      >"$S/h200-2048-counters.txt"; echo "exit $?"
    echo "== sample: profile --counters of examples/counter_kernels"; /usr/bin/time -f "wall %e s" build/mmprof profile \
      --counters --kernels 'ffma_chain|scale|add_one' --max-kernels 9 --json "$S/h200-profile-counters.json" \
      --html "$S/h200-profile-counters.html" --text "$S/h200-profile-counters.txt" --color never -- \
      build/examples/counter_kernels >"$S/own-counter-kernels.txt"; echo "exit $?"
    echo "== the same program without counters"; /usr/bin/time -f "wall %e s" build/mmprof profile --quiet --json /dev/null -- \
      build/examples/counter_kernels >/dev/null; echo "exit $?"
  } >>"$log" 2>&1
  { echo "== the GPU tests of what changed"; SANITIZE_TOOLS=none timeout 330 \
      tests/run_tests.sh --gpu build test_profile_gpu counters_gpu.sh profile_counters_gpu.sh ${COUNTERS_GPU_TESTS:-}
    echo "exit $?"; } >"$S/test-gpu.log" 2>&1
  { echo "== make bench (GPU part: 2048 4096, the counter pass included)"; BENCH_SIZES="2048 4096" MMPROF_BIN=build/mmprof \
      timeout 150 build/tests/bench; echo "exit $?"; } >"$S/bench.log" 2>&1
fi
if [ "$step" = sanitize ]; then
  { echo "== compute-sanitizer"; timeout 560 tests/run_tests.sh --gpu build sanitize_gpu.sh; echo "exit $?"; } >"$S/sanitize.log" 2>&1
fi
cd "$OUT" && tar czf "h200-$step.tgz" s && rm -rf s
ls -la "$OUT"
