#!/usr/bin/env bash
# mmprof profile on the Python examples, on a GPU machine with PyTorch and numba-cuda installed:
#   tests/profile_examples.sh [BUILD_DIR]          (default build; make gpu-build first)
# Each example writes its own account (--own); the checker compares mmprof's run file with it:
#   torch_nvtx.py      bytes each way per host memory kind equal, one NVTX range per step and
#                      phase, kernels recorded;
#   torch_nvtx.py --workers 2   a fork Pool: three processes' records, the same checks as
#                      above over all three (workers leave through os._exit, and the Pool sends
#                      SIGTERM to those still alive: the injection library flushes on both ways
#                      out), no process reported as having lost records;
#   numba_copies.py    kernels, copies and bytes each way equal;
#   torch_train.py     forward, backward (on autograd's own thread) and an SGD step per NVTX
#                      range: each step's kernel count equals the kernels any thread of the
#                      process launched while it was open (recomputed from the events), the
#                      backward thread's among them, and no step after the first two "GPU idle".
# Prints one line per check and ends with "N passed, N failed"; exit status 1 when any failed.
set -u
build=${1:-build}
mmprof=$build/mmprof
out=$(mktemp -d /tmp/mmprof-examples-XXXXXX)
trap 'rm -rf "$out"' EXIT
passed=0 failed=0

check() { # NAME RUN.json OWN.json MODE
  if python3 - "$2" "$3" "$4" <<'PY'
import json, sys
run_path, own_path, mode = sys.argv[1:]
run = json.load(open(run_path))
own = json.load(open(own_path))
ok = True
def expect(what, cond, detail=""):
    global ok
    print(f"  {'ok  ' if cond else 'FAIL'} {what} {detail}")
    ok = ok and cond
ev = run["events"]
copies = ev.get("copies", [])
def bytes_of(direction, host):
    side = "src" if direction == "HtoD" else "dst"
    return sum(c["bytes"] for c in copies if c["dir"] == direction and c.get(side) == host)
kernels = len(ev.get("kernels", []))
pids = {p["pid"] for p in run.get("processes", [])}
print(f"  {kernels} kernels, {len(copies)} copies, {len(pids)} processes; warnings: {run.get('warnings')}")
if mode.startswith("torch"):
    for d, h, key in (("HtoD", "pageable", "h2d_pageable_bytes"), ("HtoD", "pinned", "h2d_pinned_bytes"),
                      ("DtoH", "pageable", "d2h_pageable_bytes"), ("DtoH", "pinned", "d2h_pinned_bytes")):
        got = bytes_of(d, h)
        expect(f"{d} {h} bytes", got == own[key], f"(mmprof {got}, program {own[key]})")
    expect("kernels recorded", kernels >= own["matmuls"], f"({kernels} kernels, {own['matmuls']} matmuls)")
    names = [r["name"] for r in run["regions"] if r["kind"] == "nvtx"]
    steps = sum(1 for n in names if " step " in n)
    expect("one NVTX range per step", steps == own["matmuls"], f"({steps} step ranges)")
    for phase in ("copy-in", "matmul", "copy-out"):
        expect(f"NVTX '{phase}' per step", names.count(phase) == own["matmuls"], f"({names.count(phase)})")
    if mode == "torch-workers":
        expect("three processes recorded", len(pids) == 3, f"({sorted(pids)})")
        lost = [w for w in run.get("warnings", []) if "without running its exit handlers" in w]
        expect("no process reported as having lost records", not lost, f"({len(lost)})")
elif mode == "train":
    # Recomputed here from the events, independently of mmprof's analysis: a step's kernels are
    # those whose launching call (by correlation id) began while the step's range was open, on any
    # thread of the process; the backward pass is launched by autograd's thread.
    apis = {a["correlation"]: a for a in ev.get("apis", []) if a.get("correlation")}
    steps = [r for r in run["regions"] if r["kind"] == "nvtx" and r["name"].startswith("step ")]
    expect("one NVTX range per step", len(steps) == own["steps"], f"({len(steps)} step ranges)")
    threads = set(own["backward_threads"]) - {own["main_thread"]}
    expect("the backward pass ran on a thread of its own", bool(threads), f"(threads {own['backward_threads']})")
    by_name = {r["name"]: r for r in run["analysis"]["regions"]}
    for st in steps:
        ks = [k for k in ev["kernels"] if k.get("correlation") in apis and k["pid"] == st["pid"]
              and st["start_ns"] <= apis[k["correlation"]]["start_ns"] < st["end_ns"]]
        other = sum(1 for k in ks if apis[k["correlation"]]["thread"] in threads)
        r = by_name.get(st["name"])
        expect(f"{st['name']}: kernels launched by any thread", r is not None and r["kernels"] == len(ks),
               f"(mmprof {r and r['kernels']}, events {len(ks)}, {other} from the backward thread)")
        expect(f"{st['name']}: backward kernels included", other > 0, f"({other})")
    later = [by_name[s["name"]] for s in steps[2:] if s["name"] in by_name]
    idle = [r["name"] for r in later if r["verdict"] == "idle"]
    expect("no step after the first two called GPU idle", not idle, f"({idle})")
    busy = sorted(r["busy_pct"] for r in later if r.get("busy_pct") is not None)
    print(f"  busy % of steps 3..: {['%.1f' % b for b in busy]}")
else:
    expect("kernels", kernels == own["kernels"], f"(mmprof {kernels}, program {own['kernels']})")
    for d, key in (("HtoD", "h2d"), ("DtoH", "d2h")):
        n = sum(1 for c in copies if c["dir"] == d)
        b = sum(c["bytes"] for c in copies if c["dir"] == d)
        expect(f"{d} copies", n == own[key + "_copies"], f"(mmprof {n}, program {own[key + '_copies']})")
        expect(f"{d} bytes", b == own[key + "_bytes"], f"(mmprof {b}, program {own[key + '_bytes']})")
sys.exit(0 if ok else 1)
PY
  then passed=$((passed + 1)); echo "$1: passed"; else failed=$((failed + 1)); echo "$1: FAILED"; fi
}

run() { # NAME MODE ARGS...
  local name=$1 mode=$2; shift 2
  echo "== $name: $mmprof profile --json $out/$name.json -- $* --own $out/$name-own.json"
  "$mmprof" profile --text "$out/$name.txt" --json "$out/$name.json" -- "$@" --own "$out/$name-own.json"
  local rc=$?
  if [ $rc -ne 0 ]; then echo "$name: FAILED (exit $rc)"; cat "$out/$name.txt" 2>/dev/null; failed=$((failed + 1)); return; fi
  check "$name" "$out/$name.json" "$out/$name-own.json" "$mode"
}

run torch torch python3 examples/torch_nvtx.py --steps 10 --n 2048
run torch-workers torch-workers python3 examples/torch_nvtx.py --steps 5 --n 1024 --workers 2
run numba numba python3 examples/numba_copies.py --steps 5
run train train python3 examples/torch_train.py --steps 8
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
