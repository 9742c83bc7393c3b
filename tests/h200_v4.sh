#!/usr/bin/env bash
# Device calls on the H200 for the host-activity and long-run work (issues 20 and 23), over
# binaries built here with `make gpu-build` and staged by `tests/h200_v4.sh stage` into build-gpu/
# (carried; the call moves it to build/). What it measures goes to one tarball under $OUT.
#   tests/h200_v4.sh stage    (here) copy what the GPU machine runs into build-gpu/
#   tests/h200_v4.sh record   (there) the profile samples (CUDA C, PyTorch, numba, counters, the
#                             training loop, host_gaps.py and host_loop.cu: host samples and call
#                             sites in their run files), the examples' checkers, the capture and
#                             profile GPU tests, and the cost of sampling and call sites in one
#                             process (bench_host_ab); a capture run of the training loop
#   tests/h200_v4.sh long     (there) the 60 s loop profiled whole (run file size, mmprof's memory,
#                             exit to report) and tests/long_capture_gpu.sh (5 minutes under a
#                             capture against unprofiled, and a 30 s capture)
set -u
step=${1:-record}
if [ "$step" = stage ]; then
  rm -rf build-gpu && mkdir -p build-gpu/tests build-gpu/examples
  cp -a build/mmprof build/libmmprof_inject.so build/libmmprof_exit.so build/lib build-gpu/
  for t in test_gpu test_multi_gpu test_profile_gpu bench nvtx_demo host_probe.so host_probe_main; do
    [ -e build/tests/$t ] && cp -a build/tests/$t build-gpu/tests/; done
  for e in build/examples/*; do [ -x "$e" ] && cp -a "$e" build-gpu/examples/; done
  # without their debug sections (the examples keep theirs: their call sites are named by line):
  # the device call carries at most 64 MiB with the tree
  strip --strip-debug build-gpu/mmprof build-gpu/tests/* 2>/dev/null
  du -sh build-gpu; exit 0
fi
OUT=${OUT:-/tmp/out}
[ -d build-gpu ] && { rm -rf build && mv build-gpu build; }
S=$OUT/s; mkdir -p "$S"
log=$S/session-$step.log
{ echo "== $(date -u +%FT%TZ) $step"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 --version; ldd build/mmprof | grep -E "not found" || true; } >"$log" 2>&1
prof() { # NAME ARGS... : a profile sample with its wall time (PROF_OPTS: profile's own options)
  local name=$1; shift
  echo "== profile: $name"; PYTHONUNBUFFERED=1 /usr/bin/time -f "wall %e s" build/mmprof profile --json "$S/h200-profile-$name.json" \
    -q ${PROF_OPTS:-} -- "$@"
  echo "exit $?"
}
if [ "$step" = record ]; then
  { prof cuda build/examples/copies_and_streams "$S/own-cuda.json"
    prof torch python3 examples/torch_nvtx.py --own "$S/own-torch.json"
    prof numba python3 examples/numba_copies.py --own "$S/own-numba.json"
    echo "== profile --counters of examples/counter_kernels"; build/mmprof profile --counters \
      --kernels 'ffma_chain|scale|add_one' --max-kernels 9 --json "$S/h200-profile-counters.json" -q -- \
      build/examples/counter_kernels >"$S/own-counter-kernels.txt"; echo "exit $?"
    prof train python3 examples/torch_train.py --own "$S/own-train.json"
    prof host-gaps python3 examples/host_gaps.py --own "$S/own-host-gaps.json"
    prof host-loop build/examples/host_loop "$S/own-host-loop.json"
    # steps 11-15 of 3 s of a training loop only (its ranges are all named "step"): the capture
    # sample, whose windows the report compares
    PROF_OPTS="--capture-range nvtx:step --capture-skip 10 --capture-count 5" \
      prof capture python3 tests/long_loop.py --seconds 3 --own "$S/own-capture.json"
  } >>"$log" 2>&1
  { echo "== the examples' checker"; timeout 200 tests/profile_examples.sh build; echo "exit $?"; } >"$S/examples.log" 2>&1
  { echo "== GPU tests of the profile, capture and host work (without compute-sanitizer)"; SANITIZE_TOOLS=none timeout 240 \
      tests/run_tests.sh --gpu build test_profile_gpu capture_gpu.sh host_causes_gpu.sh; echo "exit $?"; } >"$S/test-gpu.log" 2>&1
  { echo "== bench_host_ab"; PYTHONUNBUFFERED=1 timeout "${BENCH_LIMIT:-170}" python3 tests/bench_host_ab.py build \
      --modes "${BENCH_MODES:-all:30,sites:20,aa:20}" --max-s $(( ${BENCH_LIMIT:-170} - 10 )) --raw "$S/bench-ab.json"
    echo "exit $?"; } >"$S/bench-host.log" 2>&1
fi
if [ "$step" = long ]; then
  # The 5-minute capture first (the figure only this call can give), then the minute profiled
  # whole with whatever time is left (tests/long_run_gpu.sh; the loop alone is long_loop.py's
  # unprofiled runs here).
  OUT=$S PLAIN_S=${PLAIN_S:-25} LONG_S=${LONG_S:-300} SHORT_S=${SHORT_S:-30} timeout 440 tests/long_capture_gpu.sh >"$S/long-capture.log" 2>&1
  echo "exit $?" >>"$S/long-capture.log"
  OUT=$S SKIP_ALONE=1 timeout 130 tests/long_run_gpu.sh 60 >"$S/long60.log" 2>&1; echo "exit $?" >>"$S/long60.log"
  rm -f "$S"/long/*.run.json "$S"/long/long.json "$S"/long/long.json.zst "$S"/long/out.*
fi
for f in "$S"/*.log; do tail -n 3 "$f"; done
cd "$OUT" && tar czf "h200-$step.tgz" s && rm -rf s
ls -la "$OUT"
