#!/usr/bin/env bash
# Device calls on the H200 for the wall-time account (issue 34) and what builds on it, over binaries
# built here with `make gpu-build` and staged by `tests/h200_v5.sh stage` into build-gpu/ (carried;
# the call moves it to build/). What it records goes to one tarball under $OUT.
#   tests/h200_v5.sh stage    (here) copy what the GPU machine runs into build-gpu/
#   tests/h200_v5.sh record   (there) the cause programs against their own accounts
#                             (tests/causes_gpu.sh), the profile samples again (their run files now
#                             hold the garbage collections and sleeps Python told of), and pairs of
#                             recordings of one program (for comparing two runs of it)
#   tests/h200_v5.sh causes   (there) the cause programs alone
#   tests/h200_v5.sh memory   (there) GPU memory against the programs' own accounts
#                             (tests/memory_gpu.sh: allocators, out-of-memory, PyTorch, crash, cost)
set -u
step=${1:-record}
if [ "$step" = stage ]; then
  rm -rf build-gpu && mkdir -p build-gpu/tests build-gpu/examples/causes
  cp -a build/mmprof build/libmmprof_inject.so build/libmmprof_exit.so build/lib build-gpu/
  for t in test_gpu test_profile_gpu nvtx_demo; do [ -e build/tests/$t ] && cp -a build/tests/$t build-gpu/tests/; done
  for e in build/examples/* build/examples/causes/*; do [ -f "$e" ] && [ -x "$e" ] && cp -a "$e" "build-gpu/${e#build/}"; done
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
if [ "$step" = record ] || [ "$step" = causes ]; then
  { echo "== the cause programs"; timeout 300 tests/causes_gpu.sh build "$S/causes"; echo "exit $?"; } >"$S/causes.log" 2>&1
fi
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
    PROF_OPTS="--capture-range nvtx:step --capture-skip 10 --capture-count 5" \
      prof capture python3 tests/long_loop.py --seconds 3 --own "$S/own-capture.json"
    # two more recordings of three programs: what changes between two runs of one program is noise
    for k in 1 2; do
      prof "pair-train-$k" python3 examples/torch_train.py --steps 40
      prof "pair-gaps-$k" python3 examples/host_gaps.py --steps 4
      prof "pair-cuda-$k" build/examples/copies_and_streams "$S/own-pair-cuda-$k.json"
    done
  } >>"$log" 2>&1
fi
if [ "$step" = memory ]; then
  { echo "== GPU memory"; timeout 560 tests/memory_gpu.sh build "$S/memory"; echo "exit $?"; } >"$S/memory.log" 2>&1
  tail -n 40 "$S/memory.log"
fi
for f in "$S"/*.log; do tail -n 3 "$f"; done
[ -f "$S/causes.log" ] && tail -n 16 "$S/causes.log"
# a file comes back from the device only under 16 MiB: a larger tarball in parts (cat them back)
cd "$OUT" && tar czf "h200-$step.tgz" s && rm -rf s
[ "$(stat -c %s "h200-$step.tgz")" -gt 15000000 ] && split -b 12m "h200-$step.tgz" "h200-$step.tgz.part-" && rm "h200-$step.tgz"
ls -la "$OUT"
