#!/usr/bin/env bash
# make test-gpu: two mmprof runs on one GPU at the same time both finish, and both verify every
# workload (each has its own context; neither may fail or hang because of the other). Whether a
# report should warn that another process shared the GPU is NVML's business (another issue):
# not checked here. One test, in cmocka's format for tests/run_tests.sh.
#   tests/concurrent_gpu.sh BUILD_DIR      (CONCURRENT_SIZE, default 2048)
set -u
build=${1:-build}
bin="$build/mmprof"
n=${CONCURRENT_SIZE:-2048}
name="two runs on one GPU at once, n=$n"
echo "[ RUN      ] $name"
if ! "$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive >/dev/null 2>&1; then
  echo "no usable GPU"; echo "[  SKIPPED ] $name"; exit 0
fi
dir=$(mktemp -d)
timeout 600 "$bin" --size "$n" --require-gpu --quiet --json "$dir/a.json" 2>"$dir/a.err" & a=$!
timeout 600 "$bin" --size "$n" --require-gpu --quiet --json "$dir/b.json" 2>"$dir/b.err" & b=$!
wait $a; ra=$?
wait $b; rb=$?
ok=1
for x in a b; do
  r=$([ $x = a ] && echo $ra || echo $rb)
  echo "run $x: exit $r"; cat "$dir/$x.err"
  # Every workload ran and verified: exit 0, and the recorded run reports again with exit 0 and no
  # workload marked failed, error or skipped.
  if [ "$r" -ne 0 ] || ! "$bin" report "$dir/$x.json" --color never >"$dir/$x.txt" 2>&1 ||
     grep -Eq " (error|FAILED|skipped) " "$dir/$x.txt"; then
    ok=0; grep -E " (error|FAILED|skipped) " "$dir/$x.txt"
  fi
done
rm -rf "$dir"
if [ $ok -eq 1 ]; then echo "[       OK ] $name"; exit 0; fi
echo "[  FAILED  ] $name"; exit 1
