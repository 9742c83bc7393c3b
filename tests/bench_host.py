"""make bench (GPU part): the cost of host sampling and launch call sites on a PyTorch loop
(tests/bench_host_loop.py), run in turn, round after round:
  plain      python3 alone;
  cupti      mmprof profile --no-sample with MMPROF_SITES=0: CUPTI's tracing only;
  sites      mmprof profile --no-sample: call sites on;
  sampled    mmprof profile: call sites and sampling on (the default);
and for each, the median and the spread (min..max) of whole-process wall time and of the loop's
own time. The cost of sites and sampling is judged against "cupti" (what mmprof profile costs
without them), the target at most 2%; the cost of everything against plain is told too. Exits 1
when "sampled" costs more than 2% of in-loop time over "cupti".

    python3 tests/bench_host.py BUILD_DIR [ROUNDS]      (BENCH_HOST_STEPS: the loop's steps)

Each run is printed as it ends (a run not done within BENCH_HOST_RUN_S, default 120 s, is reported
as hung and ends the benchmark with status 2).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
steps = os.environ.get("BENCH_HOST_STEPS", "1500")
loop = [sys.executable, os.path.join(os.path.dirname(__file__), "bench_host_loop.py"), "--steps", steps]
mmprof = os.path.join(build, "mmprof")
tmp = tempfile.mkdtemp(prefix="mmprof-bench-host-")
modes = {
    "plain": ([], {}),
    "cupti": ([mmprof, "profile", "-q", "--no-sample", "--json", f"{tmp}/run.json", "--"], {"MMPROF_SITES": "0"}),
    "sites": ([mmprof, "profile", "-q", "--no-sample", "--json", f"{tmp}/run.json", "--"], {}),
    "sampled": ([mmprof, "profile", "-q", "--json", f"{tmp}/run.json", "--"], {}),
}
res = {m: {"wall": [], "loop": []} for m in modes}
run_limit = float(os.environ.get("BENCH_HOST_RUN_S", "120"))
for r in range(rounds):
    order = list(modes) if r % 2 == 0 else list(reversed(modes))  # alternating, so drift falls on each alike
    for m in order:
        prefix, env = modes[m]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(prefix + loop, capture_output=True, text=True, env={**os.environ, **env}, timeout=run_limit)
        except subprocess.TimeoutExpired as e:
            print(f"bench_host: round {r + 1} {m}: HUNG, not done in {run_limit:.0f} s; its stderr: "
                  f"{(e.stderr or b'')[-2000:]!r}", flush=True)
            sys.exit(2)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(f"bench_host: {m} exited {p.returncode}: {p.stderr[-2000:]}")
            sys.exit(2)
        line = [x for x in p.stdout.splitlines() if x.startswith("{")][-1]
        res[m]["wall"].append(wall)
        res[m]["loop"].append(json.loads(line)["loop_s"])
        print(f"  round {r + 1} {m:<8} wall {wall:.3f} s loop {res[m]['loop'][-1]:.3f} s", flush=True)

print(f"\nHost sampling and call sites on a PyTorch training loop ({steps} steps, {rounds} rounds, alternating):")
print(f"  {'mode':<8} {'wall median':>12} {'(min..max)':>18} {'loop median':>12} {'(min..max)':>18}")
med = {}
for m, v in res.items():
    med[m] = (statistics.median(v["wall"]), statistics.median(v["loop"]))
    print(f"  {m:<8} {med[m][0]:>10.3f} s {min(v['wall']):>8.3f}..{max(v['wall']):<8.3f} {med[m][1]:>10.3f} s "
          f"{min(v['loop']):>8.3f}..{max(v['loop']):<8.3f}")


def pct(a, b):
    return 100 * (a - b) / b


for m in ("sites", "sampled"):
    print(f"  {m} over cupti: wall {pct(med[m][0], med['cupti'][0]):+.2f}%, loop {pct(med[m][1], med['cupti'][1]):+.2f}%")
print(f"  sampled over plain: wall {pct(med['sampled'][0], med['plain'][0]):+.2f}%, "
      f"loop {pct(med['sampled'][1], med['plain'][1]):+.2f}%")
spread = max(pct(max(v["loop"]), min(v["loop"])) for v in res.values())
print(f"  largest in-loop spread of a mode (max over min): {spread:.2f}%")
cost = pct(med["sampled"][1], med["cupti"][1])
print(f"  target: sampling and call sites cost at most 2% of in-loop time: {'met' if cost <= 2 else 'NOT met'} ({cost:+.2f}%)")
print("RESULT " + json.dumps({"rounds": rounds, "steps": int(steps), "runs": res}))
sys.exit(0 if cost <= 2 else 1)
