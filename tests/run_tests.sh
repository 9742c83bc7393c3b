#!/usr/bin/env bash
# Runs cmocka test binaries and prints one closing line CI reads: "N passed, N failed, N skipped".
#   tests/run_tests.sh BUILD_DIR test_a test_b ...      (make test)
# A test that is a script, tests/NAME.sh, is run with bash and BUILD_DIR; it prints cmocka's lines.
#   tests/run_tests.sh --gpu BUILD_DIR test_gpu         (make test-gpu: with no test passed, a skip
#                                                        is a failure: no usable GPU showed anything;
#                                                        beside passes, a skip stays a skip (a
#                                                        two-GPU test on a one-GPU machine))
# A name fuzz_NAME is a libFuzzer target (BUILD_DIR/fuzz/fuzz_NAME), run for FUZZ_TEST_SECONDS
# (default 30) over its checked-in corpus tests/fuzz/corpus/NAME, every input of which (crashes
# found once included) is replayed first; it counts as one test, passed when nothing crashed.
set -u
gpu=0
if [ "${1:-}" = "--gpu" ]; then gpu=1; shift; fi
build=$1; shift
passed=0 failed=0 skipped=0
run_fuzz() {
  local t=$1 name=${1#fuzz_} bin="$build/fuzz/$1" out rc
  echo "[ RUN      ] $t"
  if [ ! -x "$bin" ]; then
    echo "$t: not built ($bin missing)"; echo "[  FAILED  ] $t"; failed=$((failed + 1)); return
  fi
  # New inputs go to a scratch corpus (listed first); the checked-in one is only read.
  out=$(mktemp -d)
  "$bin" -max_total_time="${FUZZ_TEST_SECONDS:-30}" -print_final_stats=1 -artifact_prefix="$build/fuzz/$name-" \
    "$out" "tests/fuzz/corpus/$name" >"$out.log" 2>&1
  rc=$?
  grep -E "^(Done|stat::number_of_executed_units)|ERROR|runtime error|Test unit written" "$out.log"
  if [ $rc -eq 0 ]; then
    echo "[       OK ] $t"; passed=$((passed + 1))
  else
    tail -n 40 "$out.log"; echo "[  FAILED  ] $t (a crashing input is in $build/fuzz/$name-*)"; failed=$((failed + 1))
  fi
  rm -rf "$out" "$out.log"
}

for t in "$@"; do
  case $t in fuzz_*) run_fuzz "$t"; continue ;; esac
  bin="$build/tests/$t"
  cmd=("$bin")
  # A script in tests/ (named NAME.sh, or NAME with tests/NAME.sh beside) prints cmocka's lines
  # itself, given the build directory.
  case $t in
    *.sh) bin="tests/$t"; cmd=(bash "$bin" "$build") ;;
    *) if [ -f "tests/$t.sh" ]; then bin="tests/$t.sh"; cmd=(bash "$bin" "$build"); fi ;;
  esac
  if [ ! -e "$bin" ]; then
    echo "$t: not built ($bin missing)"; failed=$((failed + 1)); continue
  fi
  log=$(mktemp)
  MMPROF_BIN="$build/mmprof" CMOCKA_MESSAGE_OUTPUT=STDOUT "${cmd[@]}" >"$log" 2>&1
  rc=$?
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
  if [ $rc -ne 0 ] && [ $bad -eq 0 ]; then bad=1; echo "$t: exited with status $rc"; fi
  passed=$((passed + ok)) failed=$((failed + bad)) skipped=$((skipped + sk))
  rm -f "$log"
done
if [ $gpu -eq 1 ] && [ $skipped -gt 0 ] && [ $passed -eq 0 ]; then
  echo "test-gpu: $skipped test(s) skipped: no usable GPU here, so nothing was shown to work"
  failed=$((failed + skipped)) skipped=0
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
