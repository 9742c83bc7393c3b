#!/usr/bin/env bash
# Runs cmocka test binaries and prints one closing line CI reads: "N passed, N failed, N skipped".
#   tests/run_tests.sh BUILD_DIR test_a test_b ...      (make test)
# A test that is a script, tests/NAME.sh, is run with bash and BUILD_DIR; it prints cmocka's lines.
#   tests/run_tests.sh --gpu BUILD_DIR test_gpu         (make test-gpu: a skip there is a failure)
set -u
gpu=0
if [ "${1:-}" = "--gpu" ]; then gpu=1; shift; fi
build=$1; shift
passed=0 failed=0 skipped=0
for t in "$@"; do
  bin="$build/tests/$t"
  cmd=("$bin")
  if [ -f "tests/$t.sh" ]; then
    cmd=(bash "tests/$t.sh" "$build")
  elif [ ! -x "$bin" ]; then
    echo "$t: not built ($bin missing)"; failed=$((failed + 1)); continue
  fi
  log=$(mktemp)
  MMPROF_BIN="$build/mmprof" CMOCKA_MESSAGE_OUTPUT=STDOUT "${cmd[@]}" >"$log" 2>&1
  rc=$?
  cat "$log"
  # The line after "[ RUN ]" that gives the result decides; cmocka lists failed and skipped
  # tests again at the end, which must not count twice.
  read -r run ok sk < <(awk '
    /^\[ RUN      \]/ { run++; open = 1; next }
    open && /^\[       OK \]/ { ok++; open = 0 }
    open && /^\[  SKIPPED \]/ { sk++; open = 0 }
    open && /^\[  FAILED  \]/ { open = 0 }
    END { print run + 0, ok + 0, sk + 0 }' "$log")
  bad=$((run - ok - sk))
  # A binary that died before or between tests counts as one failure more.
  if [ $rc -ne 0 ] && [ $bad -eq 0 ]; then bad=1; echo "$t: exited with status $rc"; fi
  passed=$((passed + ok)) failed=$((failed + bad)) skipped=$((skipped + sk))
  rm -f "$log"
done
if [ $gpu -eq 1 ] && [ $skipped -gt 0 ]; then
  echo "test-gpu: $skipped test(s) skipped: no usable GPU here, so nothing was shown to work"
  failed=$((failed + skipped)) skipped=0
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
