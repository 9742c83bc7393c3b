#!/usr/bin/env bash
# make bench-db: N synthetic run files (default 1,000) made from the profile samples, each run k
# a sample's times scaled by 1 + 3% x sin(k) (and by 1.1 from k = 500 on), started k minutes
# apart (tests/run_plant.c series); then the time to store them all into SQLite with one
# `mmprof store` (goal: at most 60 s on two cores) and of `mmprof history` over them (goal: at
# most 2 s), and the same into a PostgreSQL server of its own (tests/pg_server.sh).
#   tests/db_bench.sh MMPROF RUN_PLANT [N]
set -u
bin=$1 plant=$2 n=${3:-1000}
tmp=$(mktemp -d /tmp/mmprof-dbbench-XXXXXX)
pgdir=$(mktemp -d /tmp/mmprof-pg-XXXXXX)
# shellcheck source=tests/pg_server.sh
source "$(dirname "$0")/pg_server.sh"
trap 'pg_stop; rm -rf "$tmp" "$pgdir"' EXIT

sources=(samples/h200-profile-*.json samples/h200-profile-pair-train-*.json.xz)
ns=${#sources[@]}
echo "making $n run files from ${#sources[@]} samples..."
for j in "${!sources[@]}"; do
    count=$(((n - j + ns - 1) / ns))
    [ "$count" -gt 0 ] || continue
    "$plant" "${sources[$j]}" "$tmp/run-s$j" series "$count" "$j" "$ns" || exit 1
done
files=("$tmp"/run-*.json)
echo "${#files[@]} run files, $(du -sh "$tmp" | cut -f1)"

fail=0
timed() { # LABEL LIMIT_S CMD...: wall and CPU seconds, against the limit
    local label=$1 limit=$2
    shift 2
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail=1; return; }
    read -r wall user sys <"$tmp/time"
    local verdict=ok
    awk -v w="$wall" -v l="$limit" 'BEGIN { exit !(w > l) }' && verdict="OVER the $limit s goal" && fail=1
    printf "%-44s %7.2f s wall, %7.2f s CPU (%s)\n" "$label" "$wall" "$(echo "$user + $sys" | bc)" "$verdict"
}

timed "store ${#files[@]} runs into SQLite" 60 "$bin" store -q "$tmp/bench.sqlite" "${files[@]}"
timed "history (the run's wall time)" 2 "$bin" history "$tmp/bench.sqlite"
timed "history --range 'step *'" 2 "$bin" history "$tmp/bench.sqlite" --range 'step *'
tail -1 "$tmp/out"
timed "history --range 'step *' --html" 2 "$bin" history "$tmp/bench.sqlite" --range 'step *' --html "$tmp/h.html" -q
echo "SQLite file: $(du -h "$tmp/bench.sqlite" | cut -f1)"
if pg_start "$pgdir"; then
    timed "store ${#files[@]} runs into PostgreSQL" 60 "$bin" store -q "$PG_URL" "${files[@]}"
    timed "history over PostgreSQL" 2 "$bin" history "$PG_URL"
    timed "history --range 'step *' over PostgreSQL" 2 "$bin" history "$PG_URL" --range 'step *'
else
    echo "PostgreSQL not measured: $PG_WHY"
    fail=1
fi
exit $fail
