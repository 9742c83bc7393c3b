# The option lists of mmprof's documentation, one option a line, sorted: what --help lists, what
# the man page lists and mentions, what the README mentions and what the bash completion offers.
# Sourced by tests/test_docs_options.sh and tests/test_install.sh; same_options calls the
# sourcing script's fail.

# The options a help text on stdin lists: its option lines start with spaces and a dash.
help_options() {
    sed -n 's/^ \{2,\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\1\2/p' | tr -s ', ' '\n\n' | sort -u
}

# One section of a help text on stdin: from the line that starts with $1 to the blank line after it.
help_section() {
    awk -v head="$1" 'index($0, head) == 1 { on = 1 } on && $0 == "" { exit } on'
}

# The long options of one section of a help text on stdin.
help_section_options() {
    help_section "$1" | help_options | grep -- '^--'
}

# The long options of a help text on stdin that take a FILE ("      --md FILE   write ..."), sorted.
help_file_options() {
    sed -n 's/^ \{2,\}\(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\) FILE .*/\2/p' | sort -u
}

# The options of the outputs table, report/outputs.c: the second string of each row
# ('    {"md", "--md", ...'), sorted.
output_rows() {
    sed -n 's/^    {"[a-z0-9]*", "\(--[a-z0-9-]*\)".*/\1/p' report/outputs.c | sort -u
}

# The options the man page $1 lists: the line after each .TP under OPTIONS.
man_options() {
    awk '/^\.SH/ { inopt = ($0 ~ /^\.SH OPTIONS/); next }
         inopt && tp { print; tp = 0 }
         inopt && /^\.TP/ { tp = 1 }' "$1" |
        sed 's/\\-/-/g' | grep -oE -- '(^| )-{1,2}[A-Za-z][A-Za-z0-9-]*' | tr -d ' ' | sort -u
}

# The options the man page $1 lists under the command $2 (.SS "mmprof $2 ..." in COMMANDS): the
# line after each .TP there.
man_command_options() {
    awk -v ss=".SS \"mmprof $2 " '/^\.S[HS]/ { incmd = (index($0, ss) == 1); next }
         incmd && tp { print; tp = 0 }
         incmd && /^\.TP/ { tp = 1 }' "$1" |
        sed 's/\\-/-/g' | grep -oE -- '(^| )-{1,2}[A-Za-z][A-Za-z0-9-]*' | tr -d ' ' | sort -u
}

# The commands of --help's Usage lines ("mmprof report RUN.json ...", up to the first blank line)
# and of the man page's COMMANDS section (.SS "mmprof report RUN.json ..."); the run itself has
# none.
help_commands() {
    awk '/^Usage:/ { on = 1 } on && $0 == "" { on = 0; done = 1 } on && !done' |
        sed -n 's/^\(Usage:\)\{0,1\} *mmprof \([a-z][a-z-]*\).*/\2/p' | sort -u
}
man_commands() {
    awk '/^\.SH/ { incmd = ($0 ~ /^\.SH COMMANDS/); next }
         incmd && /^\.SS/ { print }' "$1" | sed -n 's/^\.SS "mmprof \([a-z][a-z-]*\).*/\1/p' | sort -u
}

# Fails, naming each difference, unless binary $1's --help and man page $2 list the same options
# and commands.
same_options() {
    local help
    help=$("$1" --help) || fail "$1 --help failed"
    local h m
    h=$(help_options <<<"$help")
    m=$(man_options "$2")
    [ "$(wc -l <<<"$h")" -ge 10 ] || fail "found only these options in --help: $h"
    local only_help only_man
    only_help=$(comm -23 <(echo "$h") <(echo "$m"))
    only_man=$(comm -13 <(echo "$h") <(echo "$m"))
    [ -z "$only_help" ] || echo "in $1 --help but not in $2:" "${only_help//$'\n'/ }"
    [ -z "$only_man" ] || echo "in $2 but not in $1 --help:" "${only_man//$'\n'/ }"
    local hc mc
    hc=$(help_commands <<<"$help")
    mc=$(man_commands "$2")
    [ "$hc" = "$mc" ] || echo "commands: --help has [${hc//$'\n'/ }], the man page [${mc//$'\n'/ }]"
    if [ -n "$only_help$only_man" ] || [ "$hc" != "$mc" ]; then fail "--help and the man page differ"; fi
    echo "$(wc -l <<<"$h") options, and the commands [${hc//$'\n'/ }], in both"
}

# The words completion/mmprof offers for the command line "$@" (the last word being completed).
complete_words() {
    bash -c 'source completion/mmprof
             COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
             _mmprof
             printf "%s\n" "${COMPREPLY[@]}"' complete "$@" | sort
}

# mmprof's long options among the spans of text on stdin, one span a line (a command line, or a
# piece of code in prose). A span is mmprof's from the word mmprof (or a path ending in /mmprof)
# to a "--" that hands the rest to a program mmprof runs; a span that begins with an option is an
# entry of an options list, mmprof's too. So in "nsys profile --capture-range=X mmprof --size 64"
# only --size is mmprof's, and in "mmprof profile --json F -- python3 t.py --epochs 1" only --json.
span_options() {
    awk '{
        mine = 0
        for (i = 1; i <= NF; i++) {
            w = $i
            gsub(/^[[(]+|[]),.;:]+$/, "", w)
            if (w == "") continue
            if (!seen++ && w ~ /^-/) mine = 1
            if (w == "mmprof" || w ~ /\/mmprof$/) mine = 1
            else if (w == "--") mine = 0
            else if (mine && w ~ /^--[a-z]/) { sub(/=.*/, "", w); print w }
        }
        seen = 0
    }' | sort -u
}

# The options Markdown file $1 mentions: in code blocks (a line a span, shell comments left out)
# and in `code` in its prose (which may run over a line end).
markdown_options() {
    awk '/^```/ { fence = !fence; next }
         fence { sub(/(^| )#.*/, ""); print; next }
         { text = text $0 " " }
         END { n = split(text, part, "`"); for (i = 2; i <= n; i += 2) print part[i] }' "$1" | span_options
}

# The options man page $1 mentions: in font requests (.B, .BR, .BI, ...: a line a span) and in
# \fB...\fR inside text.
man_mentioned_options() {
    sed 's/\\-/-/g' "$1" | awk '
        /^\.(B|I|BR|BI|RB|IB|IR|RI|SS) / { s = $0; sub(/^\.[A-Z]+ /, "", s); gsub(/"|\\f[BIRP]/, "", s); print s; next }
        /^\./ { next }
        { s = $0
          while (match(s, /\\fB[^\\]*\\f[RP]/)) { print substr(s, RSTART + 3, RLENGTH - 6); s = substr(s, RSTART + RLENGTH) } }' |
        span_options
}
