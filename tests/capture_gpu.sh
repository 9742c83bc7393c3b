#!/usr/bin/env bash
# make test-gpu: mmprof profile's capture options on examples/capture_ranges.cu, whose kernels per
# step and markers are known (its header says where each falls). Each check is one test in
# cmocka's format for tests/run_tests.sh, reading the run file's events and analysis.capture:
#   everything        all 1 + 6*3 kernels recorded, none without timestamps (the periodic flush
#                     must not cut records of finished kernels)
#   cuda-profiler     the first cudaProfilerStart/Stop range: steps 2-3, 6 kernels, one window;
#                     --capture-count 2: both ranges, 6 and 3; --capture-skip 1: the second, 3
#   nvtx              nvtx:step count 2 skip 1: steps 1 and 2, 3 kernels each; nvtx:dstep@capture-demo
#                     (a named domain): step 4, 3 kernels; nvtx:inner (nested in step): 3 kernels
#   delay/duration    --delay 1.5 --duration 1: one window from "delay" to "duration", about 1 s
#                     long, holding every kernel recorded, and the steps the program started
#                     inside it (give or take the step at each edge)
#   killed            the program SIGKILLed mid-run with MMPROF_FLUSH_FORCED=1: the kernels of
#                     every step that ended more than a flush period (100 ms) before the kill
#                     are in the report
#   manual            --capture-range manual on two processes of one job (sh starting two copies):
#                     `mmprof capture start PID`, `stop DIR`, `start PID` again; each process gets
#                     a control-start -> control-stop window of about 1 s and a second one closed
#                     by its exit, and no kernel outside them
#   max-size          --max-size 64K on a loop of 100 steps: one window closed by max-size, fewer
#                     kernels than launched, the CUDA calls after it counted, the program run to
#                     its end, and the report's warning
#   killed-default    SIGKILL without the forced flush: the report counts, per kind, the launches
#                     and copies that have records, and where some lack them the run's verdict is
#                     withheld
#   tests/capture_gpu.sh BUILD_DIR
set -u
build=${1:-build}
bin="$build/mmprof"
prog="$build/examples/capture_ranges"
dir=$(mktemp -d /tmp/mmprof-capture-XXXXXX)
trap 'rm -rf "$dir"' EXIT
gpu=1
"$bin" --require-gpu --quiet --json /dev/null --size 16 --workloads cuda-naive >/dev/null 2>&1 || gpu=0
[ -x "$prog" ] || { echo "$prog missing: make gpu-build first"; gpu=0; }
status=0

# check NAME PYTHON-CONDITIONS -- MMPROF-PROFILE-OPTIONS -- PROGRAM-ARGS: runs the program under
# mmprof profile with the options and evaluates the Python check over the run file (run: the
# document; kernels: its kernel events; win: analysis.capture.windows; out: the program's stdout
# lines).
check() {
  local name=$1 cond=$2; shift 2
  [ "$1" = "--" ] && shift
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  echo "[ RUN      ] $name"
  if [ $gpu -eq 0 ]; then echo "no usable GPU"; echo "[  SKIPPED ] $name"; return; fi
  local json="$dir/$name.json"
  echo "\$ mmprof profile ${opts[*]} -- capture_ranges $*"
  timeout 300 "$bin" profile --json "$json" --text "$dir/$name.txt" "${opts[@]}" -- "$prog" "$@" >"$dir/$name.out"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "exit $rc"; cat "$dir/$name.txt" 2>/dev/null; echo "[  FAILED  ] $name"; status=1; return
  fi
  if judge "$json" "$dir/$name.out" "$cond"; then echo "[       OK ] $name"; else
    sed -n '/^Capture/,/^Verdicts/p' "$dir/$name.txt"; echo "[  FAILED  ] $name"; status=1
  fi
}

# judge RUN.json PROGRAM-STDOUT CONDITIONS: each condition one Python expression per line.
judge() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
out = [l.split() for l in open(sys.argv[2])]
kernels = run["events"].get("kernels", [])
cap = run.get("analysis", {}).get("capture", {})
win = cap.get("windows", [])
steps = [(int(l[1]), int(l[2]), int(l[3])) for l in out if l and l[0] == "step"]
t0 = int(run.get("epoch_ns", 0))  # a string in the run file: too large for a double
print(f"  {len(kernels)} kernels; asked: {cap.get('asked')!r}; windows: " +
      "; ".join(f"{w['window']}: {w['began']}->{w['ended']} {w.get('kernels')} kernels {w.get('wall_ms')} ms" for w in win))
print(f"  lost timestamps: {run['collection'].get('lost_timestamps')}, warnings: {run.get('warnings')}")
ok = True
for cond in sys.argv[3].strip().splitlines():
    cond = cond.strip()
    if not cond:
        continue
    try:
        good = bool(eval(cond))
    except Exception as e:  # a missing member is a failure, named
        good = False
        cond += f"  ({type(e).__name__}: {e})"
    print(f"  {'ok  ' if good else 'FAIL'} {cond}")
    ok = ok and good
sys.exit(0 if ok else 1)
PY
}

check everything '
len(kernels) == 19
run["collection"]["lost_timestamps"] == 0
"capture" not in run.get("analysis", {})
' -- -- 6 3 50

check cuda-profiler '
len(kernels) == 6
len(win) == 1 and win[0]["kernels"] == 6
win[0]["began"] == "cuda-profiler-start" and win[0]["ended"] == "cuda-profiler-stop"
win[0]["calls_before"] > 0 and win[0]["calls_after"] > 0
' -- --capture-range cuda-profiler -- 6 3 50

check cuda-profiler-count-2 '
len(kernels) == 9
[w["kernels"] for w in win] == [6, 3]
' -- --capture-range cuda-profiler --capture-count 2 -- 6 3 50

check cuda-profiler-skip-1 '
len(kernels) == 3
len(win) == 1 and win[0]["kernels"] == 3
' -- --capture-range cuda-profiler --capture-skip 1 -- 6 3 50

check nvtx-step '
len(kernels) == 6
[w["kernels"] for w in win] == [3, 3]
all(w["began"] == "nvtx-begin" and w["ended"] == "nvtx-end" for w in win)
' -- --capture-range nvtx:step --capture-count 2 --capture-skip 1 -- 6 3 50

check nvtx-domain '
len(kernels) == 3
len(win) == 1 and win[0]["kernels"] == 3
' -- --capture-range nvtx:dstep@capture-demo -- 6 3 50

check nvtx-nested '
len(kernels) == 3
len(win) == 1 and win[0]["kernels"] == 3
' -- --capture-range nvtx:inner -- 6 3 50

# 20 steps of 200 ms: the window [1.5 s, 2.5 s] after launch falls inside the loop however long
# CUDA takes to start (under a second on the H200).
check delay-duration '
len(win) == 1 and win[0]["began"] == "delay" and win[0]["ended"] == "duration"
abs(win[0]["wall_ms"] - 1000) < 50
win[0]["kernels"] == len(kernels) > 0
abs(len(kernels) - 3 * sum(1 for s in steps if s[2] - t0 >= 0 and s[2] >= run["regions"][win[0]["region"]]["start_ns"] + t0 and s[2] <= run["regions"][win[0]["region"]]["end_ns"] + t0)) <= 3
win[0]["calls_before"] > 0
' -- --delay 1.5 --duration 1 -- 20 3 200

# SIGKILL: only what CUPTI held since the last forced flush is lost.
echo "[ RUN      ] killed"
if [ $gpu -eq 0 ]; then echo "no usable GPU"; echo "[  SKIPPED ] killed"; else
  MMPROF_FLUSH_FORCED=1 "$bin" profile --json "$dir/killed.json" --text "$dir/killed.txt" -- "$prog" 40 3 100 \
    >"$dir/killed.out" &
  m=$!
  sleep 3
  child=$(pgrep -P "$m" capture_ranges | head -1)
  [ -n "$child" ] && kill -KILL "$child"
  wait $m; echo "mmprof exit $?"
  done_steps=$(grep -c '^step' "$dir/killed.out")
  # every step printed more than 100 ms before the kill was flushed; the last one may not be
  if [ -n "$child" ] && judge "$dir/killed.json" "$dir/killed.out" "
len(kernels) >= 1 + 3 * ($done_steps - 2)
$done_steps >= 5
"; then echo "[       OK ] killed"; else echo "[  FAILED  ] killed"; status=1; fi
fi
# Outside control: two processes of one job, commands by the launcher's pid and by the directory.
echo "[ RUN      ] manual"
if [ $gpu -eq 0 ]; then echo "no usable GPU"; echo "[  SKIPPED ] manual"; else
  "$bin" profile --capture-range manual --json "$dir/manual.json" --text "$dir/manual.txt" -- \
    sh -c "'$prog' 40 3 100 >'$dir/manual2.out' & '$prog' 40 3 100; wait" >"$dir/manual.out" 2>"$dir/manual.err" &
  m=$!
  sleep 1.5; "$bin" capture start $m
  sleep 1; pdir=$(sed -n 's/.*(or the directory \([^)]*\)).*/\1/p' "$dir/manual.err" | head -1)
  "$bin" capture stop "$pdir"
  sleep 0.5; "$bin" capture start $m
  wait $m; echo "mmprof exit $?"
  if judge "$dir/manual.json" "$dir/manual.out" '
len(set(w["pid"] for w in win)) == 2 and len(win) == 4
sorted((w["began"], w["ended"]) for w in win) == [("control-start", "control-stop")] * 2 + [("control-start", "exit")] * 2
all(abs(w["wall_ms"] - 1000) < 300 for w in win if w["ended"] == "control-stop")
sum(w["kernels"] for w in win) == len(kernels) > 0
all(w["kernels"] >= 3 * 6 for w in win if w["ended"] == "control-stop")
len(kernels) < 2 * (1 + 3 * 40)
'; then echo "[       OK ] manual"; else cat "$dir/manual.err"; sed -n '/^Capture/,/^Verdicts/p' "$dir/manual.txt"; echo "[  FAILED  ] manual"; status=1; fi
fi

check max-size '
len(win) == 1 and win[0]["ended"] == "max-size"
0 < len(kernels) < 1 + 3 * 100
win[0]["calls_after"] > 0 and win[0]["after_ms"] > 0
len(steps) == 100
any("recording stopped at the --max-size cap" in w for w in run["warnings"])
' -- --max-size 64K -- 100 3 20

# SIGKILL, the default flush: what arrived is counted against the launches and copies made.
echo "[ RUN      ] killed-default"
if [ $gpu -eq 0 ]; then echo "no usable GPU"; echo "[  SKIPPED ] killed-default"; else
  "$bin" profile --json "$dir/kd.json" --text "$dir/kd.txt" -- "$prog" 40 3 100 >"$dir/kd.out" &
  m=$!
  sleep 3
  child=$(pgrep -P "$m" capture_ranges | head -1)
  [ -n "$child" ] && kill -KILL "$child"
  wait $m; echo "mmprof exit $?"
  if [ -n "$child" ] && judge "$dir/kd.json" "$dir/kd.out" '
any("was killed before its last records were flushed; records incomplete" in w for w in run["analysis"]["warnings"])
any(("of %d kernel launches recorded" % len([a for a in run["events"]["apis"] if a["name"].startswith("cudaLaunchKernel")])) in w for w in run["analysis"]["warnings"])
[("withheld" in w) for w in run["analysis"]["warnings"] if "records incomplete" in w] == [run["analysis"]["regions"][0]["verdict"] == "none"]
run["analysis"]["regions"][0]["verdict"] != "none" or "launched kernels have records" in run["analysis"]["regions"][0]["verdict_reason"]
'; then echo "[       OK ] killed-default"; else grep -i "incomplete\|killed" "$dir/kd.txt"; echo "[  FAILED  ] killed-default"; status=1; fi
fi
exit $status
