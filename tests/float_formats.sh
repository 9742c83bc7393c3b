#!/usr/bin/env bash
# No figure's format is written in a renderer or a verdict sentence (issue "Tables declared once"):
# a figure's unit and precision are declared once, in its registry row (src/analysis/metrics.c,
# value_figures.c), and report/*.c and src/analysis/verdict.c print it through the registry
# (fig, html_fig, value_text). This counts the printf float conversions (%f, %.3f, %g, %e, %+.1f,
# %*.*f, ...) in their string literals, comments left out, and fails where a file has more than
# the list below allows. What is allowed is layout or data, never a figure, each in one named
# helper:
#   report/svg.c         svg_num  (%.*f) a chart's geometry: coordinates, lengths, its viewBox
#                        svg_tick (%g)   an axis tick's value: 1, 2 or 5 steps, powers of ten
#   report/html_common.c css_pct  (%.*f) a CSS length in % of its box (a bar's segments)
#                        html_data_v (%.9g) the key the page's script sorts a table cell by
#   tests/float_formats.sh BUILD_DIR   (run_tests.sh runs it; prints cmocka-style lines)
set -u
# shellcheck source=tests/cmocka_lines.sh
source "$(dirname "$0")/cmocka_lines.sh"
cd "$(dirname "$0")/.."

# FILE COUNT for each file of report/*.c and src/analysis/verdict.c with float conversions, and
# each conversion's line; or, with --text, those of the C source on stdin.
read -r -d '' counter <<'PY'
import re, sys

def literals(src):
    """(line, text) of each string literal, adjacent literals joined; comments and character
    literals skipped."""
    out, i, n, cur, last_end = [], 0, len(src), None, 0
    while i < n:
        if src.startswith('//', i):
            i = src.find('\n', i)
            i = n if i < 0 else i
        elif src.startswith('/*', i):
            i = src.find('*/', i + 2)
            i = n if i < 0 else i + 2
        elif src[i] == "'":
            i += 1
            while i < n and src[i] != "'":
                i += 2 if src[i] == '\\' else 1
            i += 1
        elif src[i] == '"':
            j, text = i + 1, []
            while j < n and src[j] != '"':
                step = 2 if src[j] == '\\' else 1
                text.append(src[j:j + step])
                j += step
            if cur is not None and src[last_end:i].strip() == '':
                cur[1] += ''.join(text)
            else:
                cur = [src.count('\n', 0, i) + 1, ''.join(text)]
                out.append(cur)
            i = last_end = j + 1
        else:
            i += 1
    return out

# A conversion as printf reads it: %% is none; flags, width, precision and length, then the letter.
SPEC = re.compile(r'%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:hh|h|ll|l|L|j|z|t)?([a-zA-Z]))')

def floats(src):
    return [(line, m.group(0)) for line, text in literals(src) for m in SPEC.finditer(text)
            if m.group(1) and m.group(1) in 'aAeEfFgG']

if sys.argv[1:] == ['--text']:
    print(len(floats(sys.stdin.read())))
else:
    for path in sys.argv[1:]:
        found = floats(open(path, encoding='utf-8', errors='replace').read())
        if found:
            print(path, len(found), ' '.join('%d:%s' % f for f in found))
PY
count_floats() { python3 -c "$counter" "$@"; }

# The list: FILE COUNT, each with its helpers above.
allowed="report/html_common.c 2
report/svg.c 2"

no_float_format_beyond_the_list() {
    local found bad=0 file n lines max
    found=$(count_floats report/*.c src/analysis/verdict.c) || return 1
    while read -r file n lines; do
        [ -n "$file" ] || continue
        max=$(awk -v f="$file" '$1 == f { print $2 }' <<<"$allowed")
        if [ "$n" -gt "${max:-0}" ]; then
            echo "$file: $n float formats, ${max:-0} allowed (line:format): $lines"
            echo "  print a figure through its registry row (fig, html_fig, value_text), layout through svg.c's or html_common.c's helpers"
            bad=1
        fi
    done <<<"$found"
    # an allowance larger than what is there is a helper gone: the list must say what is true
    while read -r file max; do
        n=$(awk -v f="$file" '$1 == f { print $2 }' <<<"$found")
        [ "${n:-0}" = "$max" ] || { echo "$file: ${n:-0} float formats where the list allows $max: update the list"; bad=1; }
    done <<<"$allowed"
    return $bad
}

# The counter counts what printf would read as a float conversion, and nothing else.
the_counter_counts_conversions() {
    local n
    n=$(count_floats --text <<'C'
/* "%.3f" in a comment */ // "%g" too
static const char *s = "%d %s %% %.3f%% 100%% done %5.1f %-8.2e %+.1f %*.*f %lf %%g";
static const char c = '"'; static const char *t = "%" "g" "x%";
C
)
    [ "$n" = 7 ] || { echo "counted $n, expected 7 (%.3f %5.1f %-8.2e %+.1f %*.*f %lf, and %g split over two literals)"; return 1; }
}

run_test the_counter_counts_conversions
run_test no_float_format_beyond_the_list
exit $((failed > 0))
