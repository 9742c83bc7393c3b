#!/usr/bin/env bash
# make bench-long (any machine, no GPU): what a long run costs mmprof after the program ends.
# tests/long_run_gen makes the record stream of 60 s of a training loop from the 12 steps recorded
# on the H200 (samples/h200-profile-train.json: ~1.8 M API calls, ~107 k kernels, ~17 k memsets,
# 3,300 NVTX steps); then, REPS times each:
#   profile   `mmprof profile --json RUN -- sh -c 'cp STREAM $MMPROF_PROFILE_DIR/'`: the launcher's
#             path from the program's exit (the child notes the time after its copy) to the text
#             report and the run file written; peak RSS of the launcher (the child is cp)
#   report    `mmprof report RUN` with --text, --json, --html, --trace each alone; then --text in
#             memory cgroups of 150 and 100 MB (tests/report_in_memcg.sh, where root can make one)
# Prints the run file's size and, per mode, the median wall time (min and max), the CPU time
# (user + system) and the peak RSS of the median run: on a shared machine the CPU time is the
# steadier figure. docs/scaling.md quotes it.
#
# With a second binary BASE (an mmprof built from another commit, with its injection library
# beside it), every rep runs BASE and then MMPROF, each on its own run file, so both see the same
# load; each line is then given for both, with the ratio of the medians (BASE / MMPROF).
#   tests/long_run_bench.sh [MMPROF] [REPS] [SECONDS] [BASE]
set -eu
bin=${1:-build/mmprof}; reps=${2:-3}; secs=${3:-60}; base=${4:-}
gen=$(dirname "$bin")/tests/long_run_gen
[ -x /usr/bin/time ] || { echo "long_run_bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
[ -x "$gen" ] || { echo "long_run_bench: $gen is missing (make $gen)" >&2; exit 2; }
[ -z "$base" ] || [ -x "$base" ] || { echo "long_run_bench: base binary $base is missing" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/s"
"$gen" samples/h200-profile-train.json "$tmp/s" "$secs"
stream=$(ls "$tmp"/s/*.stream)
echo "stream: $(stat -c %s "$stream") bytes"
now() { date +%s.%N; }
# The binaries measured, each by a tag naming its files: "new", and "base" first where given.
tags="new"; [ -z "$base" ] || tags="base new"
binary() { if [ "$1" = base ]; then echo "$base"; else echo "$bin"; fi; }
# One line per rep into $tmp/TAG.WHAT: wall seconds, peak RSS (KB), CPU seconds.
record() { read -r rss u sy <"$tmp/rss"; echo "$1 $rss $(echo "$u + $sy" | bc)" >>"$tmp/$2.$3"; }
# The median by wall time, with min and max, of TAG.WHAT; its wall median on stdout's last field.
summary() {
  sort -n "$tmp/$1.$2" | awk -v what="$2" -v tag="$1" '{t[NR]=$1; r[NR]=$2; c[NR]=$3} END { m=int((NR+1)/2)
    printf "%-14s %-4s median %7.2f s  (min %7.2f, max %7.2f)  CPU %7.2f s  peak RSS %7.1f MB\n", what, tag, t[m], t[1], t[NR], c[m], r[m]/1024 }'
}
ratio() { # WHAT: base's median wall and CPU over new's
  [ -n "$base" ] || return 0
  paste <(sort -n "$tmp/base.$1" | awk '{t[NR]=$1; c[NR]=$3} END {m=int((NR+1)/2); print t[m], c[m]}') \
        <(sort -n "$tmp/new.$1" | awk '{t[NR]=$1; c[NR]=$3} END {m=int((NR+1)/2); print t[m], c[m]}') |
    awk -v what="$1" '{printf "%-14s base/new: wall %.2fx, CPU %.2fx\n", what, $1 / $3, $2 / $4}'
}
for i in $(seq "$reps"); do
  for tag in $tags; do
    rm -f "$tmp/$tag.json"
    /usr/bin/time -f "%M %U %S" -o "$tmp/rss" "$(binary "$tag")" profile --quiet --json "$tmp/$tag.json" -- \
      sh -c 'cp "$1" "$MMPROF_PROFILE_DIR"/ && date +%s.%N >"$2"' sh "$stream" "$tmp/exit"
    end=$(now)
    record "$(echo "$end - $(cat "$tmp/exit")" | bc)" "$tag" exit-to-report
  done
done
for tag in $tags; do summary "$tag" exit-to-report; done
ratio exit-to-report
for tag in $tags; do
  run="$tmp/$tag.json"
  echo "run file ($tag): $(stat -c %s "$run") bytes; gzip -6: $(gzip -6 -c "$run" | wc -c); zstd -3: $(zstd -3 -c "$run" 2>/dev/null | wc -c)"
done
for mode in text json html trace; do
  for i in $(seq "$reps"); do
    for tag in $tags; do
      start=$(now)
      /usr/bin/time -f "%M %U %S" -o "$tmp/rss" "$(binary "$tag")" report "$tmp/$tag.json" --quiet --$mode "$tmp/out.$tag.$mode" 2>/dev/null
      end=$(now)
      record "$(echo "$end - $start" | bc)" "$tag" "report --$mode"
    done
  done
  for tag in $tags; do
    summary "$tag" "report --$mode"
    echo "  output ($tag): $(stat -c %s "$tmp/out.$tag.$mode") bytes"
  done
  ratio "report --$mode"
done
# `report --text` in a memory cgroup below the run's event arrays (root and a writable memory
# controller; skipped without): whether each binary finishes, and in what time.
for tag in $tags; do
  echo "report --text in a memory cgroup ($tag):"
  "$(dirname "$0")/report_in_memcg.sh" "$(binary "$tag")" "$tmp/$tag.json" 150 100 2>/dev/null | sed 's/^/  /'
done
