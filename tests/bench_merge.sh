#!/usr/bin/env bash
# The merge's cost as a job grows: N copies of one recorded rank file (tests/rank_files.py: own
# rank, pids, GPU and a start shifted by 1 ms a rank, 8 ranks a host), merged and analysed by
# `mmprof report run.*.json --text FILE` (the merge and the analysis) and again with
# `--json merged.json` (also writing the merged run), REPS times each. Prints per N and mode the
# input size, median wall time with min and max, and the peak RSS of the median run.
# docs/scaling.md quotes it.
#   tests/bench_merge.sh [MMPROF] [BASE.json] [REPS] [N...]
set -eu
bin=${1:-build/mmprof}; base=${2:-samples/h200-profile-torch.json}; reps=${3:-5}; shift $(( $# < 3 ? $# : 3 ))
sizes=${*:-8 16 32 64}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
case $base in *.xz) xz -dc "$base" >"$tmp/base.json"; base=$tmp/base.json ;; esac
[ -x /usr/bin/time ] || { echo "bench_merge: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
echo "base: $base ($(stat -c %s "$base") bytes, $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d['events']; print(sum(len(e[k]) for k in e), 'events,', len(d['regions']), 'regions')" "$base"))"
printf "%6s %6s %10s %10s %10s %10s %10s\n" ranks mode input_MB median_s min_s max_s rss_MB
for n in $sizes; do
  python3 tests/rank_files.py "$base" "$tmp/r$n" "$n" 1000
  mb=$(du -cm "$tmp/r$n"/run.*.json | tail -1 | cut -f1)
  for mode in text json; do
    out=(--text "$tmp/merged.txt"); [ $mode = json ] && out+=(--json "$tmp/merged.json")
    for i in $(seq "$reps"); do
      /usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" report "$tmp/r$n"/run.*.json "${out[@]}"
      cat "$tmp/t"
    done | sort -n | awk -v n="$n" -v mb="$mb" -v mode=$mode '{t[NR]=$1; r[NR]=$2} END {
        printf "%6d %6s %10d %10.3f %10.3f %10.3f %10.1f\n", n, mode, mb, t[int((NR+1)/2)], t[1], t[NR], r[int((NR+1)/2)]/1024 }'
  done
  rm -rf "$tmp/r$n"
done
