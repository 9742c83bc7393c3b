#!/usr/bin/env bash
# Runs cmocka test binaries and prints one closing line CI reads: "N passed, N failed, N skipped",
# after a line with the time taken.
#   tests/run_tests.sh BUILD_DIR test_a test_b ...      (make test)
# A test that is a script, tests/NAME.sh, is run with bash and BUILD_DIR; it prints cmocka's lines.
#   tests/run_tests.sh --gpu BUILD_DIR test_gpu         (make test-gpu: with no test passed, a skip
#                                                        is a failure: no usable GPU showed anything;
#                                                        beside passes, a skip stays a skip (a
#                                                        two-GPU test on a one-GPU machine))
# A name fuzz_NAME is a fuzz target's corpus replay (BUILD_DIR/tests/replay_NAME, the target built
# with ASan and UBSan but without libFuzzer): every input of its checked-in corpus
# tests/fuzz/corpus/NAME (crashes found once included) is run once; it counts as one test, passed
# when nothing crashed. Fuzzing itself is make fuzz.
# TEST_JOBS tests run at once (default: one per CPU; 1 under --gpu, where tests that time the GPU
# must have it to themselves), but a test named in TESTS_ALONE runs with no other beside it: it
# times itself (test_browser: the page ready within 1 s, 0.4 s on an idle machine, over 1 s beside
# a package build). Each one's output is printed whole, in the order given, so the log reads as
# if they ran one after another. TESTS_STARTED (seconds since the epoch; make test sets
# it) is where the time taken counts from, else this script's start.
set -u
gpu=0
if [ "${1:-}" = "--gpu" ]; then gpu=1; shift; fi
build=$1; shift
started=${TESTS_STARTED:-$(date +%s)}
jobs=${TEST_JOBS:-$([ $gpu -eq 1 ] && echo 1 || nproc)}
passed=0 failed=0 skipped=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

run_fuzz() {
  local t=$1 name=${1#fuzz_} bin="$build/tests/replay_${1#fuzz_}" out rc
  echo "[ RUN      ] $t"
  if [ ! -x "$bin" ]; then
    echo "$t: not built ($bin missing)"; echo "[  FAILED  ] $t"; return 1
  fi
  out=$("$bin" "tests/fuzz/corpus/$name" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$out" | tail -n 40; echo "[  FAILED  ] $t (replaying tests/fuzz/corpus/$name)"
  elif ! grep -qE '^replayed [1-9][0-9]* inputs$' <<<"$out"; then
    echo "$out"; echo "$t: tests/fuzz/corpus/$name replayed no input"; echo "[  FAILED  ] $t"; rc=1
  else
    echo "$t: $out from tests/fuzz/corpus/$name"; echo "[       OK ] $t"
  fi
  return $rc
}

# Runs test $1, printing its lines; its status is the test binary's (or script's).
run_one() {
  local t=$1 bin="$build/tests/$1"
  case $t in fuzz_*) run_fuzz "$t"; return ;; esac
  local cmd=("$bin")
  # A script in tests/ (named NAME.sh, or NAME with tests/NAME.sh beside) prints cmocka's lines
  # itself, given the build directory.
  case $t in
    *.sh) bin="tests/$t"; cmd=(bash "$bin" "$build") ;;
    *) if [ -f "tests/$t.sh" ]; then bin="tests/$t.sh"; cmd=(bash "$bin" "$build"); fi ;;
  esac
  if [ ! -e "$bin" ]; then
    echo "$t: not built ($bin missing)"; return 1
  fi
  MMPROF_BIN="$build/mmprof" CMOCKA_MESSAGE_OUTPUT=STDOUT "${cmd[@]}"
}

# Prints the output of test number $1 (once it has ended) and counts its results.
report() {
  local i=$1 t=$2 log="$logs/$1.log"
  while [ ! -e "$logs/$i.rc" ]; do wait -n 2>/dev/null || sleep 0.1; done
  local rc
  rc=$(cat "$logs/$i.rc")
  cat "$log"
  # The line after "[ RUN ]" that gives the result decides; cmocka lists failed and skipped
  # tests again at the end, which must not count twice. The result may follow other text on its
  # line: a program the test ran may have written its last bytes without a newline.
  read -r run ok sk < <(awk '
    /^\[ RUN      \]/ { run++; open = 1; next }
    open && /\[       OK \] / { ok++; open = 0 }
    open && /\[  SKIPPED \] / { sk++; open = 0 }
    open && /\[  FAILED  \] / { open = 0 }
    END { print run + 0, ok + 0, sk + 0 }' "$log")
  bad=$((run - ok - sk))
  # A binary that died before or between tests counts as one failure more.
  if [ "$rc" -ne 0 ] && [ $bad -eq 0 ]; then bad=1; echo "$t: exited with status $rc"; fi
  passed=$((passed + ok)) failed=$((failed + bad)) skipped=$((skipped + sk))
}

alone() { [[ " ${TESTS_ALONE:-} " == *" $1 "* ]]; }

tests=("$@")
next=0 # the next test whose output is due
for i in "${!tests[@]}"; do
  # A free slot first (all of them for a test that runs alone, and none beside one); meanwhile
  # the tests that have ended are printed, in order.
  limit=$jobs
  if alone "${tests[$i]}" || { [ "$i" -gt 0 ] && alone "${tests[$((i - 1))]}"; }; then limit=1; fi
  while [ "$(jobs -rp | wc -l)" -ge "$limit" ]; do
    wait -n 2>/dev/null
    while [ $next -lt "$i" ] && [ -e "$logs/$next.rc" ]; do report $next "${tests[$next]}"; next=$((next + 1)); done
  done
  (t0=$(date +%s%N); run_one "${tests[$i]}" >"$logs/$i.log" 2>&1; echo $? >"$logs/$i.rc.tmp"
   echo "$(( ($(date +%s%N) - t0) / 1000000 )) ${tests[$i]}" >"$logs/$i.ms"; mv "$logs/$i.rc.tmp" "$logs/$i.rc") &
done
for ((; next < ${#tests[@]}; next++)); do report $next "${tests[$next]}"; done

if [ $gpu -eq 1 ] && [ $skipped -gt 0 ] && [ $passed -eq 0 ]; then
  echo "test-gpu: $skipped test(s) skipped: no usable GPU here, so nothing was shown to work"
  failed=$((failed + skipped)) skipped=0
fi
# The slowest tests (wall time, beside the others running at once): where make test's five
# minutes go, for whoever has to trim it.
echo "slowest: $(cat "$logs"/*.ms 2>/dev/null | sort -rn | head -12 | awk '{printf "%s%s %.0f s", (NR > 1 ? ", " : ""), $2, $1 / 1000}')"
elapsed=$(($(date +%s) - started))
echo "took $((elapsed / 60)) min $((elapsed % 60)) s ($elapsed s)"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
