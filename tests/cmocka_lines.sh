# Sourced by the tests that are scripts: run_test NAME [ARGS...] runs the function NAME in a
# subshell and prints cmocka's lines for it ([ RUN ], [ OK ], [ FAILED ]), which run_tests.sh
# counts; $failed counts the failures, for the script's exit status.
failed=0
run_test() {
    echo "[ RUN      ] $1"
    if ("$@"); then echo "[       OK ] $1"; else echo "[  FAILED  ] $1"; failed=$((failed + 1)); fi
}
