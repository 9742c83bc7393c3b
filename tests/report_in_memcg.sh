#!/usr/bin/env bash
# `mmprof report RUN --text` inside a memory cgroup of LIMIT MB, for each LIMIT: whether it
# finished (or was killed for memory), its wall time, and the cgroup's peak (resident memory the
# kernel charged: the heap and the page cache of the spill files, docs/scaling.md seventh part).
# A report bounded by what it shows finishes under a limit below its run's event arrays, where
# the page cache is given back under pressure; a report on the heap is killed there.
#   tests/report_in_memcg.sh MMPROF RUN LIMIT_MB...
# Needs root and a writable memory controller (cgroup v2, or v1's memory hierarchy); says
# "skipped" and exits 0 without one. Makes its own child group and removes it.
set -u
bin=$1 run=$2; shift 2
v2=/sys/fs/cgroup v1=/sys/fs/cgroup/memory
if [ -f "$v2/cgroup.controllers" ] && grep -qw memory "$v2/cgroup.controllers"; then
  grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null || echo +memory >"$v2/cgroup.subtree_control" 2>/dev/null
  base=$v2 limit_file=memory.max peak_file=memory.peak
elif [ -d "$v1" ] && [ -w "$v1" ]; then
  base=$v1 limit_file=memory.limit_in_bytes peak_file=memory.max_usage_in_bytes
else
  echo "report_in_memcg: skipped: no writable memory cgroup here"; exit 0
fi
out=$(mktemp); g=
trap 'rm -f "$out" "$out.err"; [ -z "$g" ] || rmdir "$g" 2>/dev/null' EXIT
for mb in "$@"; do
  g=$base/mmprof-memcg-$$-$mb # a group per limit: its peak is this run's alone
  mkdir "$g" 2>/dev/null || { echo "report_in_memcg: skipped: cannot make a cgroup under $base"; exit 0; }
  echo "${mb}M" >"$g/$limit_file" || { echo "report_in_memcg: cannot set $g/$limit_file"; exit 1; }
  t0=$(date +%s.%N)
  # the child enters the group, then becomes mmprof: only it is charged
  (echo "$BASHPID" >"$g/cgroup.procs" && exec "$bin" report "$run" --text "$out") >/dev/null 2>"$out.err"
  rc=$?
  t1=$(date +%s.%N)
  peak=$(cat "$g/$peak_file" 2>/dev/null || echo 0)
  case $rc in 0) what=finished ;; 137) what="killed (out of memory)" ;; *) what="failed (exit $rc: $(head -c 160 "$out.err"))" ;; esac
  awk -v mb="$mb" -v what="$what" -v t0="$t0" -v t1="$t1" -v peak="$peak" \
    'BEGIN { printf "limit %5s MB: %-24s %6.2f s, cgroup peak %6.1f MB\n", mb, what, t1 - t0, peak / 1048576 }'
  rmdir "$g" 2>/dev/null; g=
done
