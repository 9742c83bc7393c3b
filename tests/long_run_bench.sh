#!/usr/bin/env bash
# make bench-long (any machine, no GPU): what a long run costs mmprof after the program ends.
# tests/long_run_gen makes the record stream of 60 s of a training loop from the 12 steps recorded
# on the H200 (samples/h200-profile-train.json: ~1.8 M API calls, ~107 k kernels, ~17 k memsets,
# 3,300 NVTX steps); then, REPS times each:
#   profile   `mmprof profile --json RUN -- sh -c 'cp STREAM $MMPROF_PROFILE_DIR/'`: the launcher's
#             path from the program's exit (the child notes the time after its copy) to the text
#             report and the run file written; peak RSS of the launcher (the child is cp)
#   report    `mmprof report RUN` with --text, --json, --html, --trace each alone
# Prints the run file's size and, per mode, the median wall time (min and max), the CPU time
# (user + system) and the peak RSS of the median run: on a shared machine the CPU time is the
# steadier figure. docs/scaling.md quotes it.
#   tests/long_run_bench.sh [MMPROF] [REPS] [SECONDS]
set -eu
bin=${1:-build/mmprof}; reps=${2:-3}; secs=${3:-60}
gen=$(dirname "$bin")/tests/long_run_gen
[ -x /usr/bin/time ] || { echo "long_run_bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
[ -x "$gen" ] || { echo "long_run_bench: $gen is missing (make $gen)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/s"
"$gen" samples/h200-profile-train.json "$tmp/s" "$secs"
stream=$(ls "$tmp"/s/*.stream)
echo "stream: $(stat -c %s "$stream") bytes"
now() { date +%s.%N; }
# One line per rep: wall seconds, peak RSS (KB), CPU seconds; the median by wall time, with min
# and max.
summary() {
  sort -n | awk -v what="$1" '{t[NR]=$1; r[NR]=$2; c[NR]=$3} END { m=int((NR+1)/2)
    printf "%-14s median %7.2f s  (min %7.2f, max %7.2f)  CPU %7.2f s  peak RSS %7.1f MB\n", what, t[m], t[1], t[NR], c[m], r[m]/1024 }'
}
for i in $(seq "$reps"); do
  rm -f "$tmp/run.json"
  /usr/bin/time -f "%M %U %S" -o "$tmp/rss" "$bin" profile --quiet --json "$tmp/run.json" -- \
    sh -c 'cp "$1" "$MMPROF_PROFILE_DIR"/ && date +%s.%N >"$2"' sh "$stream" "$tmp/exit"
  end=$(now)
  read -r rss u sy <"$tmp/rss"; echo "$(echo "$end - $(cat "$tmp/exit")" | bc) $rss $(echo "$u + $sy" | bc)"
done | summary "exit-to-report"
echo "run file: $(stat -c %s "$tmp/run.json") bytes; gzip -6: $(gzip -6 -c "$tmp/run.json" | wc -c); zstd -3: $(zstd -3 -c "$tmp/run.json" 2>/dev/null | wc -c)"
for mode in text json html trace; do
  for i in $(seq "$reps"); do
    start=$(now)
    /usr/bin/time -f "%M %U %S" -o "$tmp/rss" "$bin" report "$tmp/run.json" --quiet --$mode "$tmp/out.$mode"
    end=$(now)
    read -r rss u sy <"$tmp/rss"; echo "$(echo "$end - $start" | bc) $rss $(echo "$u + $sy" | bc)"
  done | summary "report --$mode"
  echo "  output: $(stat -c %s "$tmp/out.$mode") bytes"
done
