"""The cost of mmprof profile's collection on a PyTorch loop (tests/bench_host_loop.py), between
processes run in turn, round after round. The step time there moves by 10-30% between processes,
so this cannot show a 2% cost: tests/bench_host_ab.py measures sampling and call sites inside one
process and is the one make bench runs; this one is left for what cannot be switched inside a
process (CUPTI's tracing over Python alone) and for two builds side by side. Modes:
  plain      python3 alone;
  cupti      mmprof profile --no-sample with MMPROF_SITES=0: CUPTI's tracing only;
  sites      mmprof profile --no-sample: call sites on;
  sampled    mmprof profile: call sites and sampling on (the default);
with --parts, two more, to tell the sampler's costs apart (MMPROF_SAMPLE_OFF, a knob of the
injection library for this benchmark only):
  sampled-nopy   sampling with the Python look off (CPU-time timers only);
  sampled-nocpu  sampling with the CPU-time timers off (the Python look only);
with --before DIR, the profiled modes of a second build (another commit's build dir) too, named
"before:MODE", in the same rounds, so two builds compare side by side.

Each run's loop times its steps (host time per step, no synchronisation added). For each run the
median step and the mean step are taken; a mode's figure is the median of its runs' figures, its
spread their min..max over rounds. The median step is the judged figure: it is steady from run to
run where the loop's whole time is not (a stall now and then, a slower process), but it does not see
a cost that hits only some steps, so the mean step is reported beside it. The cost of sites and
sampling is judged against "cupti" of the same build (what mmprof profile costs without them), the
target at most 2%. Exits 1 when "sampled" costs more than 2% of the median step over "cupti".

    python3 tests/bench_host.py BUILD_DIR [ROUNDS] [--before DIR] [--parts] [--steps N] [--max-s S]
                                            [--raw FILE]

ROUNDS (default 5) is at most: no round starts once the next would end past --max-s seconds from
the start (default: no limit). --raw FILE: every run's step times, as JSON. Each run is printed as it
ends (a run not done within BENCH_HOST_RUN_S, default 120 s, is reported as hung and ends the
benchmark with status 2).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

p = argparse.ArgumentParser()
p.add_argument("build")
p.add_argument("rounds", nargs="?", type=int, default=5)
p.add_argument("--before")
p.add_argument("--parts", action="store_true")
p.add_argument("--steps", type=int, default=int(os.environ.get("BENCH_HOST_STEPS", "600")))
p.add_argument("--max-s", type=float, default=0)
p.add_argument("--raw")
o = p.parse_args()

loop = [sys.executable, os.path.join(os.path.dirname(__file__), "bench_host_loop.py"), "--steps", str(o.steps)]
tmp = tempfile.mkdtemp(prefix="mmprof-bench-host-")


def profiled(build, label):
    profile = [os.path.join(build, "mmprof"), "profile", "-q", "--json", f"{tmp}/run.json"]
    m = {f"{label}cupti": (profile + ["--no-sample", "--"], {"MMPROF_SITES": "0"}),
         f"{label}sites": (profile + ["--no-sample", "--"], {}),
         f"{label}sampled": (profile + ["--"], {})}
    return m


modes = {"plain": ([], {}), **profiled(o.build, "")}
if o.parts:
    modes["sampled-nopy"] = (modes["sampled"][0], {"MMPROF_SAMPLE_OFF": "python"})
    modes["sampled-nocpu"] = (modes["sampled"][0], {"MMPROF_SAMPLE_OFF": "cpu"})
if o.before:
    modes.update(profiled(o.before, "before:"))

res = {m: {"wall": [], "loop": [], "median": [], "mean": [], "steps_ms": []} for m in modes}
run_limit = float(os.environ.get("BENCH_HOST_RUN_S", "120"))
start = time.perf_counter()
rounds = 0
for r in range(o.rounds):
    took = (time.perf_counter() - start) / rounds if rounds else 0
    if o.max_s and rounds and time.perf_counter() - start + took > o.max_s:
        print(f"bench_host: stopping after {rounds} rounds: another would end past {o.max_s:.0f} s", flush=True)
        break
    order = list(modes) if r % 2 == 0 else list(reversed(modes))  # alternating, so drift falls on each alike
    for m in order:
        prefix, env = modes[m]
        t0 = time.perf_counter()
        try:
            run = subprocess.run(prefix + loop, capture_output=True, text=True, env={**os.environ, **env}, timeout=run_limit)
        except subprocess.TimeoutExpired as e:
            print(f"bench_host: round {r + 1} {m}: HUNG, not done in {run_limit:.0f} s; its stderr: "
                  f"{(e.stderr or b'')[-2000:]!r}", flush=True)
            sys.exit(2)
        wall = time.perf_counter() - t0
        if run.returncode != 0:
            print(f"bench_host: {m} exited {run.returncode}: {run.stderr[-2000:]}")
            sys.exit(2)
        out = json.loads([x for x in run.stdout.splitlines() if x.startswith("{")][-1])
        v = res[m]
        v["wall"].append(wall)
        v["loop"].append(out["loop_s"])
        v["median"].append(statistics.median(out["steps_ms"]))
        v["mean"].append(statistics.fmean(out["steps_ms"]))
        v["steps_ms"].append(out["steps_ms"])
        print(f"  round {r + 1} {m:<16} wall {wall:6.2f} s loop {out['loop_s']:.3f} s  step median {v['median'][-1]:.4f} ms "
              f"mean {v['mean'][-1]:.4f} ms", flush=True)
    rounds += 1


def pct(a, b):
    return 100 * (a - b) / b


def spread(xs):
    return f"{min(xs):.4f}..{max(xs):.4f}"


print(f"\nHost sampling and call sites on a PyTorch training loop ({o.steps} steps, {rounds} rounds, alternating):")
print(f"  {'mode':<16} {'step median':>11} {'(min..max)':>16} {'step mean':>10} {'(min..max)':>16} {'loop':>7} {'wall':>7}")
med = {}
for m, v in res.items():
    med[m] = {k: statistics.median(v[k]) for k in ("median", "mean", "loop", "wall")}
    print(f"  {m:<16} {med[m]['median']:8.4f} ms {spread(v['median']):>16} {med[m]['mean']:7.4f} ms {spread(v['mean']):>16} "
          f"{med[m]['loop']:6.3f}s {med[m]['wall']:6.2f}s")
for label in ("before:", "") if o.before else ("",):
    base = f"{label}cupti"
    for m in [x for x in res if x.startswith(label) and x != base and (label or not x.startswith("before:")) and x != "plain"]:
        print(f"  {m} over {base}: step median {pct(med[m]['median'], med[base]['median']):+.2f}%, "
              f"step mean {pct(med[m]['mean'], med[base]['mean']):+.2f}%")
print(f"  cupti over plain: step median {pct(med['cupti']['median'], med['plain']['median']):+.2f}%, "
      f"step mean {pct(med['cupti']['mean'], med['plain']['mean']):+.2f}%")
widest = max(pct(max(v["median"]), min(v["median"])) for v in res.values())
print(f"  largest spread of a mode's step median over rounds (max over min): {widest:.2f}%")
cost = pct(med["sampled"]["median"], med["cupti"]["median"])
print(f"  target: sampling and call sites cost at most 2% of the median step: {'met' if cost <= 2 else 'NOT met'} "
      f"({cost:+.2f}%)")
if o.raw:
    with open(o.raw, "w") as f:
        json.dump({"rounds": rounds, "steps": o.steps, "runs": res}, f)
print("RESULT " + json.dumps({"rounds": rounds, "steps": o.steps,
                              "runs": {m: {k: v[k] for k in ("wall", "loop", "median", "mean")} for m, v in res.items()}}))
sys.exit(0 if cost <= 2 else 1)
