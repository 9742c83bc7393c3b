#!/usr/bin/env bash
# README.md is a quick start: at most 120 lines, and every example it gives runs. An example is a
# line of a ```sh block that starts with "mmprof "; its comment (from " # ") is left out. Each is
# run as written, with mmprof the binary under test ($MMPROF_BIN, else BUILD_DIR/mmprof) and its
# placeholders the committed samples:
#   trace.json -> samples/h200-train.kineto.json    RUN.json -> samples/h200-profile-train.json
#   A.json     -> samples/h200-2048.json            B.json   -> samples/h200-2048-counters.json
#   train.py   -> examples/torch_train.py           any other NAME.html, .json, .csv: a new file
#                                                   in a temporary folder
# An example that needs a GPU (the built-in run, profile) is skipped, with the reason, where no
# usable GPU answers (profile also needs PyTorch). Each command has its case below, with what its
# output must hold; an example of a command without one fails until its case is written.
#   tests/readme_examples.sh [BUILD_DIR]     (make test and make test-gpu run it; it prints
#                                             cmocka's lines, [  SKIPPED ] for a skipped example)
set -u
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
readme=README.md
max_lines=120
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

fail() { echo "FAIL: $*"; exit 1; }

# The examples, one a line: the sh blocks' lines that start with "mmprof ", without their comment.
examples() {
    awk '/^```/ { sh = ($0 == "```sh") && !open; open = !open; next }
         sh && /^mmprof / { sub(/ +# .*/, ""); print }' "$readme"
}

readme_is_a_quick_start() {
    local n
    n=$(wc -l <"$readme")
    [ "$n" -le $max_lines ] || fail "$readme has $n lines, more than $max_lines: move the detail to docs/"
    local c missing=''
    for c in '--size' profile import compare diff report; do
        examples | grep -q -- "^mmprof $c " || missing+=" $c"
    done
    [ -z "$missing" ] || fail "$readme has no example of:$missing"
    echo "$readme: $n lines, $(examples | wc -l) examples"
}

# Why a GPU example cannot run here (empty where it can), asked once.
no_gpu=''
"$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive >/dev/null 2>"$tmp/gpu.err" ||
    no_gpu="it needs a GPU, and none is usable here ($(tail -n 1 "$tmp/gpu.err"))"

# Runs example $1 (the README's line). Prints SKIPPED itself (and returns 0) for a skip.
run_example() {
    local line=$1 words w args=() dir="$tmp/$2" why=''
    mkdir -p "$dir"
    read -ra words <<<"$line"
    for w in "${words[@]:1}"; do
        case $w in
            trace.json) w=samples/h200-train.kineto.json ;;
            RUN.json) w=samples/h200-profile-train.json ;;
            A.json) w=samples/h200-2048.json ;;
            B.json) w=samples/h200-2048-counters.json ;;
            train.py) w=examples/torch_train.py ;;
            *.html | *.json | *.csv) [[ $w == */* ]] || w=$dir/$w ;;
        esac
        args+=("$w")
    done
    # What the command's output (standard output and error together) must hold, and what a
    # skip needs.
    local want
    case ${words[1]} in
        -*) want='^Summary$' why=$no_gpu ;;
        profile) want='^Where the time went ' why=$no_gpu
                 [ -n "$why" ] || python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
                     why="examples/torch_train.py needs PyTorch with CUDA, which python3 lacks" ;;
        import | report) want='^Where the time went ' ;;
        compare) want='^workload cublas-sgemm \(pinned\)$' ;;
        diff) want='^\* cause .counter_replay.: new' ;;
        *) fail "no case for 'mmprof ${words[1]}' in $0: write one (placeholders, what its output holds)" ;;
    esac
    if [ -n "$why" ]; then
        echo "$line: skipped: $why"
        echo "[  SKIPPED ] $line"
        return 0
    fi
    echo "$bin ${args[*]}"
    timeout 300 "$bin" "${args[@]}" >"$dir/out" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { tail -n 20 "$dir/out"; fail "exit status $rc"; }
    grep -qE "$want" "$dir/out" || { head -n 20 "$dir/out"; fail "its output has no line matching '$want'"; }
    # Each file it was asked to write is there, and a page is whole.
    for w in "${args[@]}"; do
        case $w in "$dir"/*)
            [ -s "$w" ] || fail "it wrote no $w"
            case $w in *.html) grep -q '</html>' "$w" || fail "$w is not a whole page" ;; esac ;;
        esac
    done
    echo "exit 0, '$want' and every output written"
    echo "[       OK ] $line"
}

run_test readme_is_a_quick_start
i=0
while IFS= read -r line; do
    i=$((i + 1))
    echo "[ RUN      ] $line"
    # A case that fails prints its FAILED line here; one that skips or passes prints its own.
    if ! (run_example "$line" "$i"); then echo "[  FAILED  ] $line"; failed=$((failed + 1)); fi
done < <(examples)
[ $i -gt 0 ] || { echo "[ RUN      ] readme_examples_found"; echo "$readme has no example"; echo "[  FAILED  ] readme_examples_found"; failed=$((failed + 1)); }
[ $failed -eq 0 ]
