#!/usr/bin/env bash
# make test-gpu: two mmprof runs on one GPU at the same time both finish, and both verify every
# workload (each has its own context; neither may fail or hang because of the other). Whether each
# report warns that the other process used the GPU is printed (test_gpu's two_runs_see_each_other
# checks that warning). One test, in cmocka's format for tests/run_tests.sh.
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
  # Every workload ran and verified: exit 0, the recorded run reports again with exit 0, and every
  # workload's status in the run file is "ok" (read from the JSON: the report's own words, such as
  # "relative Frobenius error", are no test of it).
  if [ "$r" -ne 0 ] || ! "$bin" report "$dir/$x.json" --color never >"$dir/$x.txt" 2>&1 ||
     ! python3 -c 'import json, sys
bad = [w["name"] + " " + w["status"] for w in json.load(open(sys.argv[1]))["builtin"]["workloads"] if w["status"] != "ok"]
print("\n".join(bad)); sys.exit(1 if bad else 0)' "$dir/$x.json"; then
    ok=0
  fi
  # Each run names the other process NVML saw on the GPU.
  grep -q "another process" "$dir/$x.txt" && echo "run $x: warned that another process used the GPU"
done
rm -rf "$dir"
if [ $ok -eq 1 ]; then echo "[       OK ] $name"; exit 0; fi
echo "[  FAILED  ] $name"; exit 1
