#!/usr/bin/env bash
# The injection library's memory and a killed loop's report, on the H200 (issue 23), with
# tests/torch_steps.py (PyTorch, NVTX steps, the GPU kept busy):
#   plain      the loop unprofiled: steps done and peak RSS (VmHWM)
#   whole      under mmprof profile, everything recorded: the same, the run file's size
#   capture    under --capture-range nvtx:step --capture-count 5: the same
#   killed     under mmprof profile, SIGKILLed after KILL_S seconds with the default flush: the
#              report's count of launched kernels with records, and the run's verdict
# Prints one line per case and leaves the run files and reports in OUT (default /tmp/out).
#   tests/capture_rss_gpu.sh BUILD_DIR [SECONDS [KILL_S]]
set -u
build=${1:-build}
secs=${2:-12}
kill_s=${3:-8}
bin="$build/mmprof"
out=${OUT:-/tmp/out}
mkdir -p "$out"
loop="tests/torch_steps.py"
figures() { tail -1 "$1"; }
echo "== plain"; python3 "$loop" "$secs" >"$out/plain.out" 2>&1; figures "$out/plain.out"
echo "== whole"; "$bin" profile -q --json "$out/whole.json" -- python3 "$loop" "$secs" >"$out/whole.out" 2>"$out/whole.err"
figures "$out/whole.out"; ls -l "$out/whole.json" | awk '{print "run file", $5, "bytes"}'
echo "== capture"; "$bin" profile -q --capture-range nvtx:step --capture-count 5 --json "$out/capture.json" -- \
  python3 "$loop" "$secs" >"$out/capture.out" 2>"$out/capture.err"
figures "$out/capture.out"; ls -l "$out/capture.json" | awk '{print "run file", $5, "bytes"}'
echo "== killed after $kill_s s"
"$bin" profile --json "$out/killed.json" --text "$out/killed.txt" --color never -- python3 "$loop" 60 >"$out/killed.out" 2>&1 &
m=$!
sleep "$kill_s"
child=$(pgrep -P "$m" python3 | head -1)
[ -n "$child" ] && kill -KILL "$child"
wait $m; echo "mmprof exit $?"; grep "^at" "$out/killed.out" | tail -1
python3 - "$out/killed.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
r = run["analysis"]["regions"][0]
print("kernels recorded", len(run["events"].get("kernels", [])), "api calls", len(run["events"].get("apis", [])))
print("run verdict", r["verdict"], "-", r["verdict_reason"])
for w in run["warnings"] + run["analysis"]["warnings"]:
    if "incomplete" in w or "killed" in w:
        print("warning:", w)
PY
