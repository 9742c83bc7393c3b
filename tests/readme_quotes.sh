#!/usr/bin/env bash
# README.md and the docs (docs/*.md) quote mmprof's output only in blocks made by a command, so
# what they quote is what mmprof prints. A block is marked
#   <!-- quoted from: build/mmprof report samples/h200-2048.json --color never; section Summary -->
#   ```
#   (what the command prints)
#   ```
#   <!-- end quoted -->
# After "; ", "section NAME" quotes the lines from the first that reads NAME (alone, or followed by
# two spaces and the section's subtitle) to the blank line that ends the section's first
# paragraph (a blank line right after that first line does not end it), and "first N lines" the
# first N; with neither the block is the whole output. The command's first word must be
# build/mmprof, which stands for the binary under test ($MMPROF_BIN, else BUILD_DIR/mmprof); the
# other words are its arguments, split at spaces (no shell runs them). The output must be the same
# on every machine, as the report of a recorded sample is. README.md must hold at least one
# block (the quick start shows real output); a docs file may hold none.
#   tests/readme_quotes.sh [BUILD_DIR]            checks every file: prints cmocka's lines and,
#                                                 for a block that is not what its command
#                                                 prints, the diff and the fix, `make readme`
#                                                 (make test runs it)
#   tests/readme_quotes.sh --update [BUILD_DIR]   rewrites the blocks in README.md and docs/*.md
#                                                 (make readme)
set -u
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
readme=README.md
files=("$readme" docs/*.md)
begin='<!-- quoted from: ' end='<!-- end quoted -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The lines of the block that marker line $1 asks for; on a fault, a message and status 1.
quoted() {
    local spec=${1#"$begin"} what='' words out
    spec=${spec%' -->'}
    local cmd=${spec%%; *}
    [ "$cmd" = "$spec" ] || what=${spec#*; }
    read -ra words <<<"$cmd"
    [ "${words[0]:-}" = build/mmprof ] || { echo "the command must start with build/mmprof: $cmd"; return 1; }
    out=$("$bin" "${words[@]:1}" 2>"$tmp/stderr") || { echo "'$cmd' failed: $(cat "$tmp/stderr")"; return 1; }
    case $what in
        '') printf '%s\n' "$out" ;;
        'section '*)
            out=$(awk -v name="${what#section }" '
                !on && ($0 == name || index($0, name "  ") == 1) { on = 1; print; next }
                on && $0 == "" { if (body) exit; print; next }
                on { body = 1; print }' <<<"$out")
            [ -n "$out" ] || { echo "no line of what '$cmd' prints reads '${what#section }'"; return 1; }
            printf '%s\n' "$out" ;;
        'first '*' lines')
            local n=${what#first }
            n=${n% lines}
            [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "'$what': expected 'first N lines'"; return 1; }
            head -n "$n" <<<"$out" ;;
        *) echo "'$what': expected 'section NAME' or 'first N lines'"; return 1 ;;
    esac
}

# File $1 with every block made again, into $tmp/new; the count of its blocks in $tmp/count.
regenerate() {
    local file=$1 lines i j n=0 block
    mapfile -t lines <"$file"
    : >"$tmp/new"
    for ((i = 0; i < ${#lines[@]}; i++)); do
        printf '%s\n' "${lines[i]}" >>"$tmp/new"
        case ${lines[i]} in
            "$end") echo "$file:$((i + 1)): '$end' without a '$begin...' marker before it"; return 1 ;;
            "$begin"*' -->') ;;
            *) continue ;;
        esac
        for ((j = i + 1; j < ${#lines[@]}; j++)); do
            case ${lines[j]} in "$end" | "$begin"*) break ;; esac
        done
        [ "${lines[j]:-}" = "$end" ] || { echo "$file:$((i + 1)): no '$end' after this marker"; return 1; }
        block=$(quoted "${lines[i]}") || { echo "$file:$((i + 1)): $block"; return 1; }
        printf '```\n%s\n```\n%s\n' "$block" "$end" >>"$tmp/new"
        i=$j n=$((n + 1))
    done
    echo $n >"$tmp/count"
}

if [ $update -eq 1 ]; then
    status=0
    for f in "${files[@]}"; do
        if ! regenerate "$f"; then status=1; continue; fi
        n=$(cat "$tmp/count")
        [ "$n" -eq 0 ] && continue
        cmp -s "$tmp/new" "$f" || cp "$tmp/new" "$f"
        echo "$f: $n quoted block(s) made by $bin"
    done
    exit $status
fi

t=readme_quotes_are_what_mmprof_prints
echo "[ RUN      ] $t"
bad=0 total=0 quoting=()
for f in "${files[@]}"; do
    if ! regenerate "$f"; then bad=1; continue; fi
    n=$(cat "$tmp/count")
    # A README with no marker left would pass unchecked.
    if [ "$f" = "$readme" ] && [ "$n" -eq 0 ]; then
        echo "$readme has no '$begin...' marker: nothing quoted is checked"; bad=1; continue
    fi
    [ "$n" -eq 0 ] && continue
    total=$((total + n)) quoting+=("$f")
    if ! diff -u --label "$f" --label "$f as make readme writes it" "$f" "$tmp/new"; then
        echo "$f quotes output that $bin no longer prints (above). Run 'make readme' and commit $f."
        bad=1
    fi
done
if [ $bad -ne 0 ]; then echo "[  FAILED  ] $t"; exit 1; fi
echo "$total quoted block(s) of ${quoting[*]} are what $bin prints"
echo "[       OK ] $t"
