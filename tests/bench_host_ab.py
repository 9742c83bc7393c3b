"""make bench (GPU part): the cost of host sampling and launch call sites on a PyTorch loop
(tests/bench_host_loop.py), measured inside one process: the loop runs in pairs of blocks of
steps, one block with sampling and sites as asked ("on"), the other with them off as under
--no-sample with MMPROF_SITES=0 ("off": CUPTI's tracing alone), switched by the injection
library's benchmark knob MMPROF_AB_FILE (the file present: off; sample_config.h). The machine's
step time drifts by 10-30% between processes and within one (docs/host-sampling.md), more than
the 2% sought; two adjacent blocks share that drift. Blocks are 12 steps (about 35 ms there) by
default: on the H200 the steps' noise is mostly from step to step, not slow, so many short pairs
gave a narrower interval than fewer long ones (2026-12-01: +-0.8% from 24 s with 12 steps against
+-1.9% from 30 s with 50).

The library writes "abswitch TS on|off" once a switch is done; a block's steps count only from
the first that began after it, less --skip more. A pair's cost is its on block's median step over
its off block's, less 1; a mode's figure is the median over pairs, with its interquartile range
and a 95% interval of that median (order statistics), and the number of pairs. Modes, one process
each, with the library injected as mmprof profile injects it (no report made):
  all      sampling (100 Hz) and call sites on against CUPTI alone: the figure judged (<= 2%);
  aa       the same process, but the file switched is not the one the library watches: both
           blocks of a pair alike, so its spread is the method's noise and its median its bias;
  sites    --no-sample: call sites alone against CUPTI alone;
  callbacks  the same with MMPROF_SITES=callbacks: the sites' CUPTI callbacks on, no stack taken;
  all1000  sampling at 1000 Hz and call sites;
  nopy     call sites and the CPU-time timers (MMPROF_SAMPLE_OFF=python);
  nocpu    call sites and the Python look (MMPROF_SAMPLE_OFF=cpu).
Samples written in on and off blocks are counted from the stream (none may fall in an off block).

    python3 tests/bench_host_ab.py BUILD_DIR [--modes all,aa:20,sites] [--seconds S] [--block N]
                                   [--skip K] [--max-s S] [--raw FILE]

A mode's steps run for --seconds (default 30), or the seconds given after it. Modes run in the
order given while the next would end within --max-s of the start (default no limit; a process
takes about 12 s more than its steps); --raw FILE keeps every block's steps and the library's switch and stat lines as JSON.
Exits 1 when "all" (if run) costs more than 2%, 2 when a run fails.
"""
import argparse
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODES = {
    "all": ({"MMPROF_SAMPLE_HZ": "100"}, True),
    "aa": ({"MMPROF_SAMPLE_HZ": "100"}, False),
    "sites": ({"MMPROF_SAMPLE_HZ": "0"}, True),
    "callbacks": ({"MMPROF_SAMPLE_HZ": "0", "MMPROF_SITES": "callbacks"}, True),
    "all1000": ({"MMPROF_SAMPLE_HZ": "1000"}, True),
    "nopy": ({"MMPROF_SAMPLE_HZ": "100", "MMPROF_SAMPLE_OFF": "python"}, True),
    "nocpu": ({"MMPROF_SAMPLE_HZ": "100", "MMPROF_SAMPLE_OFF": "cpu"}, True),
}
STARTUP_S = 15  # a process's start, CUDA's and the warm-up steps, and its exit, counted for --max-s

p = argparse.ArgumentParser()
p.add_argument("build")
p.add_argument("--modes", default="all,aa,sites")
p.add_argument("--seconds", type=float, default=30)
p.add_argument("--block", type=int, default=12)
p.add_argument("--skip", type=int, default=2)
p.add_argument("--max-s", type=float, default=0)
p.add_argument("--raw")
o = p.parse_args()
modes = {}
for arg in o.modes.split(","):
    m, _, secs = arg.partition(":")
    try:
        modes[m] = float(secs) if secs else o.seconds
    except ValueError:
        sys.exit(f"bench_host_ab: --modes {arg!r}: {secs!r} is not a number of seconds")
    if m not in MODES or modes[m] <= 0:
        sys.exit(f"bench_host_ab: --modes {arg!r}: not a mode with seconds > 0 (modes: {', '.join(MODES)})")
lib = os.path.abspath(os.path.join(o.build, "libmmprof_inject.so"))
if not os.path.exists(lib):
    sys.exit(f"bench_host_ab: {lib} not found: build it first")
loop = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_host_loop.py")
tmp = tempfile.mkdtemp(prefix="mmprof-bench-ab-")


def host_lines(stream_dir):
    """The stream's switch, sample, sampler and stat lines (the stream holds millions of CUDA lines)."""
    paths = glob.glob(f"{stream_dir}/*.stream")
    run = subprocess.run(["grep", "-ahE", "^(abswitch|sample|sampler|samplestat|sitestat)\t", *paths],
                         capture_output=True, text=True) if paths else None
    lines = [x.split("\t") for x in (run.stdout.splitlines() if run else [])]
    return {"switches": [(int(x[1]), x[2]) for x in lines if x[0] == "abswitch"],
            "samples": [(int(x[1]), x[4]) for x in lines if x[0] == "sample"],
            "stats": ["\t".join(x) for x in lines if x[0] in ("sampler", "samplestat", "sitestat")]}


def block_medians(blocks, switches, skip):
    """Each block's median of the steps begun after the library's switch into its state (the
    toggle itself where the block before was in the same state, or nothing watches the file),
    less skip more; and when each block's state began (None: the switch was not seen)."""
    out, acks, prev = [], [], None
    for b in blocks:
        state = "on" if b["on"] else "off"
        ack = b["toggle_ns"]
        if switches and prev is not None and prev != b["on"]:
            done = [t for t, s in switches if s == state and t >= b["toggle_ns"]]
            ack = done[0] if done else None
        prev = b["on"]
        acks.append(ack)
        if ack is None:
            out.append(None)
            continue
        kept = [s for t, s in zip(b["starts_us"], b["steps_ms"]) if b["toggle_ns"] + t * 1000 >= ack][skip:]
        out.append(statistics.median(kept) if len(kept) >= len(b["steps_ms"]) // 2 else None)
    return out, acks


def quantile(xs, q):
    xs = sorted(xs)
    i = q * (len(xs) - 1)
    lo = math.floor(i)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)


def median_interval(xs):
    """A 95% interval of the median: the order statistics n/2 -+ 0.98 sqrt(n)."""
    xs, n = sorted(xs), len(xs)
    d = 0.98 * math.sqrt(n)
    return xs[max(0, math.floor(n / 2 - d))], xs[min(n - 1, math.ceil(n / 2 + d) - 1)]


def run_mode(m, seconds):
    env_extra, watched = MODES[m]
    d = f"{tmp}/{m}"
    os.makedirs(d)
    ab = f"{tmp}/{m}.ab"
    env = {**os.environ, **env_extra, "CUDA_INJECTION64_PATH": lib, "NVTX_INJECTION64_PATH": lib,
           "MMPROF_PROFILE_DIR": d, "MMPROF_AB_FILE": ab if watched else f"{tmp}/{m}.unwatched"}
    hook = os.path.join(os.path.dirname(lib), "libmmprof_exit.so")  # as mmprof profile preloads it
    if os.path.exists(hook):
        env["LD_PRELOAD"] = hook + (":" + os.environ["LD_PRELOAD"] if os.environ.get("LD_PRELOAD") else "")
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, loop, "--ab", ab, "--block", str(o.block), "--seconds", str(seconds)],
                         capture_output=True, text=True, env=env, timeout=seconds + 180)
    wall = time.perf_counter() - t0
    if run.returncode != 0:
        print(f"bench_host_ab: {m} exited {run.returncode}: {run.stderr[-2000:]}", flush=True)
        sys.exit(2)
    blocks = json.loads([x for x in run.stdout.splitlines() if x.startswith("{")][-1])["blocks"]
    host = host_lines(d)
    shutil.rmtree(d)
    meds, acks = block_medians(blocks, host["switches"] if watched else [], o.skip)
    lags = [(a - b["toggle_ns"]) / 1e6 for a, b in zip(acks, blocks) if a is not None]
    costs = [meds[i if blocks[i]["on"] else i + 1] / meds[i + 1 if blocks[i]["on"] else i] - 1
             for i in range(0, len(blocks) - 1, 2) if meds[i] is not None and meds[i + 1] is not None]
    # Samples by the state they fell in (from a block's switch to the next block's toggle).
    in_state = {"on": 0, "off": 0}
    span = {"on": 0.0, "off": 0.0}
    for i, (b, start) in enumerate(zip(blocks, acks)):
        if start is None:
            continue
        end = blocks[i + 1]["toggle_ns"] if i + 1 < len(blocks) else b["toggle_ns"] + b["starts_us"][-1] * 1000
        state = "on" if b["on"] else "off"
        span[state] += (end - start) / 1e9
        in_state[state] += sum(start <= t < end for t, _ in host["samples"])
    return {"wall": wall, "blocks": blocks, "medians": meds, "lags_ms": lags, "costs": costs, "host": host,
            "samples": in_state, "span_s": span}


res = {}
start = time.perf_counter()
for m, seconds in modes.items():
    if o.max_s and time.perf_counter() - start + seconds + STARTUP_S > o.max_s:
        print(f"bench_host_ab: {m} and the modes after it not run: it would end past {o.max_s:.0f} s", flush=True)
        break
    r = res[m] = run_mode(m, seconds)
    c = r["costs"]
    print(f"  {m:<9} {len(c)} pairs of {o.block} steps in {seconds:.0f} s, wall {r['wall']:.1f} s, cost median "
          f"{100 * statistics.median(c):+.2f}%" if c else f"  {m:<9} no pair kept", flush=True)

print(f"\nHost sampling and call sites, in one process per mode, pairs of {o.block}-step blocks on/off "
      f"(a block's steps from the switch, less {o.skip}):")
print(f"  {'mode':<9} {'pairs':>5} {'cost median':>11} {'IQR':>17} {'95% of median':>17} {'step on':>8} {'off':>8} "
      f"{'switch ms':>9} {'samples/s on':>12} {'off':>5}")
summary = {}
for m, r in res.items():
    c = r["costs"]
    if not c:
        print(f"  {m:<9} no pair kept")
        continue
    on = statistics.median(x for x, b in zip(r["medians"], r["blocks"]) if x is not None and b["on"])
    off = statistics.median(x for x, b in zip(r["medians"], r["blocks"]) if x is not None and not b["on"])
    lo, hi = median_interval(c)
    summary[m] = {"pairs": len(c), "median": statistics.median(c), "q1": quantile(c, 0.25), "q3": quantile(c, 0.75),
                  "ci95": [lo, hi], "step_on_ms": on, "step_off_ms": off,
                  "switch_ms_median": statistics.median(r["lags_ms"]), "switch_ms_max": max(r["lags_ms"]),
                  "samples_per_s": {k: r["samples"][k] / r["span_s"][k] for k in ("on", "off")},
                  "stats": r["host"]["stats"]}
    s = summary[m]
    print(f"  {m:<9} {len(c):5d} {100 * s['median']:+10.2f}% {100 * s['q1']:+7.2f}..{100 * s['q3']:+.2f}% "
          f"{100 * lo:+7.2f}..{100 * hi:+.2f}% {on:6.3f}ms {off:6.3f}ms {s['switch_ms_median']:4.1f}/{s['switch_ms_max']:4.1f} "
          f"{s['samples_per_s']['on']:12.0f} {s['samples_per_s']['off']:5.0f}")
for m, s in summary.items():
    print(f"  {m}: " + " | ".join(x.replace("\t", " ") for x in s["stats"]))
if o.raw:
    with open(o.raw, "w") as f:
        json.dump({"block": o.block, "skip": o.skip, "seconds": modes, "summary": summary,
                   "runs": {m: {k: r[k] for k in ("wall", "blocks", "medians", "lags_ms", "costs")} |
                            {"switches": r["host"]["switches"]} for m, r in res.items()}}, f)
shutil.rmtree(tmp, ignore_errors=True)
print("RESULT " + json.dumps(summary))
bad = [m for m, s in summary.items() if s["samples_per_s"]["off"] > 0 and m != "aa"]
if bad:
    print(f"bench_host_ab: samples written while off in {bad}: the pause did not hold")
    sys.exit(2)
if "all" in summary:
    ok = summary["all"]["median"] <= 0.02
    print(f"  target: sampling and call sites cost at most 2% of the median step: {'met' if ok else 'NOT met'} "
          f"({100 * summary['all']['median']:+.2f}%)")
    sys.exit(0 if ok else 1)
