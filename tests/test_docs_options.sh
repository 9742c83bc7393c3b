#!/usr/bin/env bash
# --help, the man page, the bash completion and the Markdown docs name the same options: each
# command's help against the man page, what completion offers each command against its help, and
# every option the docs mention against --help. tests/option_lists.sh reads the lists.
#   tests/test_docs_options.sh BUILD_DIR [TEST...]   (run_tests.sh runs it, from the repository
#                                                      root; TEST names run only those)
# It prints cmocka's lines ([ RUN ], [ OK ], [ FAILED ]), which run_tests.sh counts.
set -u
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
man=docs/mmprof.1
docs=(README.md docs/*.md cuda/README.md)
# shellcheck source=tests/option_lists.sh
source "$(dirname "$0")/option_lists.sh"

fail() { echo "FAIL: $*"; exit 1; }

# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"

# Lines of $1 that $2 lacks, on one line (both sorted).
missing() { comm -23 <(echo "$1") <(echo "$2") | grep . | tr '\n' ' '; }

# The long options of the help text on stdin.
long_options() { help_options | grep -- '^--'; }

# Every long option any command's help lists.
all_help_options() {
    local c
    { "$bin" --help; for c in $("$bin" --help | help_commands); do "$bin" "$c" --help; done; } | long_options | sort -u
}

man_page_lists_the_options_of_help() {
    same_options "$bin" "$man"
    # The page renders without a warning from groff.
    local warnings
    warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1) || fail "groff failed: $warnings"
    [ -z "$warnings" ] || fail "groff warns: $warnings"
}

# A command with a help of its own (mmprof compare --help) has its options listed in its section
# of the man page's COMMANDS, and no others; the commands that print the run's help are covered
# by man_page_lists_the_options_of_help.
each_command_help_is_in_its_man_section() {
    local main c help h m bad=0 own=0
    main=$("$bin" --help)
    for c in $(help_commands <<<"$main"); do
        help=$("$bin" "$c" --help) || fail "mmprof $c --help failed"
        [ "$help" = "$main" ] && continue
        own=$((own + 1))
        h=$(help_options <<<"$help")
        m=$(man_command_options "$man" "$c")
        if [ "$h" != "$m" ]; then
            echo "mmprof $c --help lists [$(missing "$h" "$m")] that $man's .SS \"mmprof $c\" lacks," \
                 "which lists [$(missing "$m" "$h")] that the help lacks"
            bad=1
        fi
    done
    [ $bad -eq 0 ] || fail "a command's help and its man page section differ"
    echo "$own command(s) with a help of their own, each as its man page section says"
}

# What completing "mmprof [COMMAND [FILE]] --" offers is exactly the options that command takes.
completion_offers_each_command_its_options() {
    local help run output profile compare got bad=0 words
    help=$("$bin" --help)
    run=$(long_options <<<"$help")
    output=$(help_section_options "Output options" <<<"$help")
    [ -n "$output" ] || fail "--help has no 'Output options' section"
    # profile takes the output options and the run options its paragraph of --help names.
    profile=$( (echo "$output"; awk '/^mmprof profile:/ { on = 1 } on && $0 == "" { exit } on' <<<"$help" |
        grep -oE -- '--[a-z][a-z0-9-]*') | sort -u)
    compare=$("$bin" compare --help | long_options)
    check() { # WANT LABEL WORDS...
        local want=$1 label=$2
        shift 2
        got=$(complete_words "$bin" "$@" | grep -- '^--')
        if [ "$got" != "$want" ]; then
            echo "completing '$label' lacks [$(missing "$want" "$got")] and offers [$(missing "$got" "$want")] too"
            bad=1
        fi
    }
    check "$run" "mmprof --" --
    check "$output" "mmprof report RUN --" report samples/h200-2048.json --
    check "$output" "mmprof import TRACE --" import samples/h200-train-step.kineto.json --
    check "$profile" "mmprof profile --" profile --
    check "$compare" "mmprof compare --" compare --
    [ $bad -eq 0 ] || fail "completion/mmprof and --help differ"
    words=$(wc -l <<<"$run")
    echo "$words options for a run, $(wc -l <<<"$output") for report and import, $(wc -l <<<"$profile") for profile," \
         "$(wc -l <<<"$compare") for compare, as --help says"
}

# Each row of the outputs table (report/outputs.c) is an output --help lists with its FILE, the man
# page lists, and the completion knows: it offers file names after the option, and passes over the
# option's value where it looks for report's run file or profile's CMD. So a row added to the table
# fails here until the man page and completion/mmprof have it (--help prints the rows itself).
each_output_row_is_in_help_man_and_completion() {
    local rows help_files man_opts opt got bad=0
    rows=$(output_rows)
    [ "$(wc -l <<<"$rows")" -ge 5 ] || fail "found only [${rows//$'\n'/ }] in report/outputs.c: is the extraction broken?"
    help_files=$("$bin" --help | help_section "Output options" | help_file_options)
    [ "$rows" = "$help_files" ] ||
        { echo "the outputs table has [${rows//$'\n'/ }], --help's Output options [${help_files//$'\n'/ }]"; bad=1; }
    man_opts=$(man_options "$man")
    for opt in $rows; do
        grep -qx -- "$opt" <<<"$man_opts" || { echo "$man lists no $opt"; bad=1; }
        got=$(complete_words "$bin" "$opt" samples/h200-2048.j)
        [ "$got" = samples/h200-2048.json ] || { echo "completing '$opt samples/h200-2048.j' offers [$got]"; bad=1; }
        got=$(complete_words "$bin" report "$opt" out samples/h200-2048.j)
        [ "$got" = samples/h200-2048.json ] ||
            { echo "completing 'report $opt out samples/h200-2048.j' offers [$got]: $opt's value taken for the run file"; bad=1; }
        got=$(complete_words "$bin" profile "$opt" out --js)
        [ "$got" = --json ] || { echo "completing 'profile $opt out --js' offers [$got]: $opt's value taken for CMD"; bad=1; }
    done
    [ $bad -eq 0 ] || fail "an output of the table is missing from --help, the man page or the completion"
    echo "$(wc -l <<<"$rows") outputs in the table, each in --help, the man page and the completion"
}

completion_offers_commands_workloads_values_files() {
    # The commands, as the first word.
    local want got
    want=$("$bin" --help | help_commands)
    got=$(complete_words "$bin" "")
    [ "$got" = "$want" ] || fail "completing 'mmprof ' offers [$got], not the commands of --help [$want]"
    # Workload names come from the binary, also after a comma.
    want=$( (echo all; "$bin" --list-workloads | awk '{print $1}') | sort)
    got=$(complete_words "$bin" --workloads "")
    [ "$got" = "$want" ] || fail "completing --workloads offers [$got], not [$want]"
    got=$(complete_words "$bin" -w cpu-openblas,cuda-na)
    [ "$got" = "cpu-openblas,cuda-naive" ] || fail "completing '-w cpu-openblas,cuda-na' offers [$got]"
    # Option values, and files.
    got=$(complete_words "$bin" --host-memory p)
    [ "$got" = "$(printf 'pageable\npinned')" ] || fail "completing '--host-memory p' offers [$got]"
    got=$(complete_words "$bin" report samples/h200-2048.j)
    [ "$got" = samples/h200-2048.json ] || fail "completing a run file offers [$got]"
    got=$(complete_words "$bin" --html = samples/h200-2048.h)
    [ "$got" = samples/h200-2048.html ] || fail "completing '--html=samples/h200-2048.h' offers [$got]"
}

# Every option the man page and the Markdown docs name in a command line or an options list is
# one that some help lists (options of the programs they run, like torchrun's, are left out:
# tests/option_lists.sh says how).
options_the_docs_mention_exist() {
    local known f mentioned unknown bad=0 n=0
    known=$(all_help_options)
    for f in "$man" "${docs[@]}"; do
        if [ "$f" = "$man" ]; then mentioned=$(man_mentioned_options "$f"); else mentioned=$(markdown_options "$f"); fi
        n=$((n + $(grep -c . <<<"$mentioned")))
        unknown=$(missing "$mentioned" "$known")
        [ -z "$unknown" ] || { echo "$f mentions [$unknown], which no --help lists"; bad=1; }
    done
    [ $bad -eq 0 ] || fail "the docs mention options mmprof does not have"
    [ $n -ge 20 ] || fail "found only $n option mentions in $man ${docs[*]}: is the extraction broken?"
    echo "$n mentions in ${#docs[@]} Markdown files and $man, each an option of --help"
}

tests=(man_page_lists_the_options_of_help each_command_help_is_in_its_man_section
       completion_offers_each_command_its_options each_output_row_is_in_help_man_and_completion
       completion_offers_commands_workloads_values_files
       options_the_docs_mention_exist)
[ $# -gt 1 ] && tests=("${@:2}")
for t in "${tests[@]}"; do run_test "$t"; done
[ $failed -eq 0 ]
